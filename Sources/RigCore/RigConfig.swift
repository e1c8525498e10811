public import BLEHost
public import PicoAnalysis
public import PicoLink
import PicoSimulator
public import PicoSimulator
public import RigModel

/// A rig as its TOML file describes it, checked (see `RigConfigParser`).
public struct RigConfig: Sendable, Equatable {
    /// The rig's name (in the journal, logs and, later, the fleet database).
    public var name: String
    /// Where the journal lives (relative paths are relative to the config file).
    public var journal: String
    public var devices: [DeviceConfig]
    /// `[status]`: the status page, `/metrics` and `/healthz` (nil: none served).
    public var status: StatusConfig?
    /// `[forward.postgres]`: forwarding the journal to PostgreSQL (nil: none).
    public var forward: PostgresForwardConfig?
    /// `[analysis]`: how each run is analysed as it ends, for devices without their own settings and
    /// for runs of devices no longer in the config (nil: the analysis is off).
    public var analysis: AnalysisSettings? = AnalysisSettings()

    public init(name: String, journal: String, devices: [DeviceConfig]) {
        self.name = name
        self.journal = journal
        self.devices = devices
    }
}

/// One instrument of a rig.
public struct DeviceConfig: Sendable, Equatable {
    /// Unique within the rig: letters, digits, `.`, `_` and `-`.
    public var name: String
    /// `AA:BB:CC:DD:EE:FF`; nil for a simulator.
    public var address: String?
    /// `public` or `random`.
    public var addressType: String
    /// `kernel`, `kernel:hciN`, `user:hciN`, `serial:…`, `tcp:HOST:PORT` or `sim`.
    public var transport: String
    /// Link tuning beside the runs once connected (a preset or explicit values), nil to leave the link as
    /// it comes.
    public var link: LinkTuningRequest?
    /// The script as configured (its path) and as it will be sent.
    public var scriptPath: String
    public var script: PicoScript
    /// The script's text as read from the file (for provenance).
    public var scriptText: String
    public var schedule: RunSchedule
    /// A run that has not ended after this many seconds is aborted and closed as incomplete.
    public var runTimeout: Double?
    /// Limits the runs are stopped at (`max_current`, `potential_window`; `run_timeout` is the longest run).
    public var limits: RunLimits
    /// After this many consecutive failures (connects or runs), retries wait `failureBackoff`.
    public var maximumFailures: Int
    /// The longer wait after `maximumFailures`, in seconds.
    public var failureBackoff: Double
    /// Simulated devices only: run the cell model in real time (the default) or as fast as possible.
    public var realTime: Bool
    /// Simulated devices only: the simulated Pico served on this Unix socket by `hcipico simulate` (nil:
    /// one in the rig's own process).
    public var simulatorSocket: String?
    /// A simulated device's cell (`sim_cell`; nil: chosen per script).
    public var simulatorCell: CellModel?
    /// `encrypt`, `authenticate` or `auto` (as `--security`), nil to use the link as it comes.
    public var security: String?
    /// The passkey to type when pairing (the device's fixed PIN), 0…999999.
    public var passkey: UInt32?
    /// The serial number the device must answer `i` with (`serial_number`; nil: any): a different Pico
    /// on the port is not measured under this device's name.
    public var serialNumber: String?
    /// Where to look for a serial port device by `serialNumber` when its port has gone (`search_ports`,
    /// shell globs; empty: every FTDI port).
    public var searchPorts: [String] = []
    /// `[device.analysis]` over the rig's `[analysis]`: how each of its runs is analysed as it ends
    /// (nil: not at all).
    public var analysis: AnalysisSettings? = AnalysisSettings()

    public init(
        name: String,
        address: String? = nil,
        addressType: String = "public",
        transport: String,
        link: LinkTuningRequest? = nil,
        scriptPath: String,
        script: PicoScript,
        scriptText: String,
        schedule: RunSchedule,
        runTimeout: Double? = nil,
        limits: RunLimits = RunLimits(),
        maximumFailures: Int = 5,
        failureBackoff: Double = 300,
        realTime: Bool = true,
        simulatorSocket: String? = nil,
        simulatorCell: CellModel? = nil,
        security: String? = nil,
        passkey: UInt32? = nil
    ) {
        self.name = name
        self.address = address
        self.addressType = addressType
        self.transport = transport
        self.link = link
        self.scriptPath = scriptPath
        self.script = script
        self.scriptText = scriptText
        self.schedule = schedule
        self.runTimeout = runTimeout
        self.limits = limits
        self.maximumFailures = maximumFailures
        self.failureBackoff = failureBackoff
        self.realTime = realTime
        self.simulatorSocket = simulatorSocket
        self.simulatorCell = simulatorCell
        self.security = security
        self.passkey = passkey
    }

    /// True for the in-process simulator.
    public var isSimulator: Bool { transport == "sim" }

    /// Whether `other` reaches the device the same way (address, transport, link tuning, security,
    /// the simulator's pace), so that a reload can apply the rest to the running supervisor.
    public func sameConnection(as other: DeviceConfig) -> Bool {
        name == other.name && address == other.address && addressType == other.addressType
            && transport == other.transport && link == other.link && security == other.security
            && passkey == other.passkey && realTime == other.realTime && simulatorSocket == other.simulatorSocket
            && simulatorCell == other.simulatorCell && serialNumber == other.serialNumber
            && searchPorts == other.searchPorts
    }
}
