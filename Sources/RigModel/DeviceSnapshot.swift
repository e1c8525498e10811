/// Where one device of a rig stands, for logs, the status page and tests.
public struct DeviceSnapshot: Sendable, Equatable {
    public enum State: Sendable, Equatable, CustomStringConvertible {
        case starting
        case connecting(attempt: Int)
        /// Waiting before reconnect attempt `attempt` (seconds since the epoch), after `reason`.
        case waitingToRetry(until: Double, attempt: Int, reason: String)
        /// Connected, waiting for the next run (nil: no more runs are due).
        case idle(nextRun: Double?)
        case running(run: Int)
        case stopping
        /// The supervisor ended: its schedule is done, or the rig stopped it.
        case finished(reason: String)

        public var description: String {
            switch self {
            case .starting: "starting"
            case .connecting(let attempt): attempt == 1 ? "connecting" : "connecting (attempt \(attempt))"
            case .waitingToRetry(_, let attempt, let reason): "away, retry \(attempt) pending (\(reason))"
            case .idle(nil): "connected"
            case .idle: "connected, next run scheduled"
            case .running(let run): "running run \(run)"
            case .stopping: "stopping"
            case .finished(let reason): "finished (\(reason))"
            }
        }
    }

    /// The run in progress, as the journal knows it.
    public struct CurrentRun: Sendable, Equatable {
        /// The journal's key for the run.
        public var uuid: String
        public var deviceRun: Int
        public var title: String
        /// Seconds since the Unix epoch.
        public var startedAt: Double
        /// Packages received in this run so far.
        public var packages: Int
        /// The packages the script will send, when it says plainly (`ScriptExtent`).
        public var expectedPackages: Int?

        public init(
            uuid: String,
            deviceRun: Int,
            title: String,
            startedAt: Double,
            packages: Int,
            expectedPackages: Int? = nil
        ) {
            self.uuid = uuid
            self.deviceRun = deviceRun
            self.title = title
            self.startedAt = startedAt
            self.packages = packages
            self.expectedPackages = expectedPackages
        }

        /// 0…1, when the script says how many packages it sends.
        public var progress: Double? {
            expectedPackages.flatMap { $0 > 0 ? min(1, Double(packages) / Double($0)) : nil }
        }
    }

    public var name: String
    public var state: State
    public var currentRun: CurrentRun?
    /// Values in the packages received (every run).
    public var samples: Int = 0
    /// The device's TX notifications received during runs.
    public var notifications: Int = 0
    /// The link parameters as last known (text, as in a run's provenance).
    public var link: String?
    public var connected: Bool
    public var runs: Int
    public var completeRuns: Int
    public var incompleteRuns: Int
    /// Packages received and handed to the journal (a run's are committed by the time the run is
    /// reported as ended; the journal's own count of committed packages is `JournalWriter.committedPackages`).
    public var packages: Int
    public var overflowed: Int
    public var reconnects: Int
    public var consecutiveFailures: Int
    public var lastError: String?
    public var firmware: String?
    public var serialNumber: String?
    /// The RSSI read at the start of the last run, in dBm, where the path could say.
    public var lastRSSI: Int?
    /// What became of the cell after the last run that did not end normally, or what the last connection
    /// found (`cell off confirmed at …`, `cell state unknown: …`).
    public var lastCell: String?
    /// Runs (and scripts found running at connect) after which the cell's state is unknown.
    public var cellUnknown: Int = 0

    public init(name: String) {
        self.name = name
        state = .starting
        connected = false
        runs = 0
        completeRuns = 0
        incompleteRuns = 0
        packages = 0
        overflowed = 0
        reconnects = 0
        consecutiveFailures = 0
    }
}
