/// Where the forwarder stands, for the status page, `/metrics` and the end summary.
public struct ForwarderStatus: Sendable, Equatable {
    public enum State: String, Sendable, Equatable {
        /// Not connected yet.
        case starting
        /// Sending a backlog.
        case forwarding
        /// Up to date, waiting for the next commit.
        case idle
        /// The last attempt failed; retrying after a pause.
        case waiting
    }

    public var state: State = .starting
    /// Packages this process has seen PostgreSQL commit.
    public var forwardedPackages: Int = 0
    /// Runs' analyses this process has seen PostgreSQL commit.
    public var forwardedAnalyses: Int = 0
    /// Committed journal packages not yet in PostgreSQL, and how old the oldest is (seconds).
    public var lagPackages: Int = 0
    public var lagSeconds: Double = 0
    /// Failed attempts (connects, batches) since the rig started.
    public var errors: Int = 0
    public var lastError: String?
    /// Runs and packages pruned from the journal since the rig started.
    public var prunedRuns: Int = 0
    public var prunedPackages: Int = 0

    public init() {}
}
