/// A run asked of one device of a rig, on demand (over the API) or by its schedule, from the moment it
/// is queued to its end. A device runs one at a time: the one of highest priority first, and among
/// equals the one asked first.
public struct RunRequest: Sendable, Equatable {
    /// Where a request stands.
    public enum State: String, Sendable, Equatable {
        /// Waiting for the device.
        case queued
        /// Its run is in progress (`runID`).
        case running
        /// Its run ended complete.
        case complete
        /// Its run ended incomplete (`reason`).
        case incomplete
        /// It never started: cancelled, or the rig stopped first (`reason`).
        case cancelled

        /// Whether nothing more will happen to it.
        public var isFinal: Bool { self != .queued && self != .running }
    }

    /// The rig's key for the request (a lowercase UUID).
    public var id: String
    public var device: String
    /// The run's title in the journal (the method's technique, or what the submitter named it).
    public var title: String
    /// The technique when the run is a method (`dpv`), nil for a script given as it is.
    public var technique: String?
    /// The MethodSCRIPT the run sends, one line each.
    public var script: [String]
    /// Higher runs first; 0 unless the submitter says.
    public var priority: Int
    /// Seconds since the Unix epoch.
    public var submittedAt: Double
    /// Who asked: `schedule` (`scheduleSubmitter`), or the role and client of an API call
    /// (`control token (curl/8.1.2)`).
    public var submitter: String
    /// The submitter's key: a second submission with the same key is this request, not a new run.
    public var idempotencyKey: String?
    public var state: State
    /// The journal's key for the run, once it started.
    public var runID: String?
    /// The device's run number, once it started.
    public var deviceRun: Int?
    /// Why it ended incomplete or was cancelled.
    public var reason: String?
    /// Counts the changes: a record of the request written later but older (a lower revision) does not
    /// replace a newer one.
    public var revision = 0

    /// The submitter of a schedule's runs.
    public static let scheduleSubmitter = "schedule"

    /// Whether the device's schedule asked for it.
    public var isScheduled: Bool { submitter == Self.scheduleSubmitter }

    public init(
        id: String,
        device: String,
        title: String,
        technique: String? = nil,
        script: [String],
        priority: Int = 0,
        submittedAt: Double,
        submitter: String,
        idempotencyKey: String? = nil
    ) {
        self.id = id
        self.device = device
        self.title = title
        self.technique = technique
        self.script = script
        self.priority = priority
        self.submittedAt = submittedAt
        self.submitter = submitter
        self.idempotencyKey = idempotencyKey
        state = .queued
    }
}
