public import BLEWire

/// How a kernel-path scan ended and what it saw.
public struct KernelScanOutcome: Sendable, Equatable {
    /// Why a scan stopped.
    public enum Ending: Sendable, Equatable {
        /// The duration passed.
        case duration
        /// The caller's body asked to stop.
        case stopped
        /// The task was cancelled (Ctrl-C, SIGTERM).
        case cancelled
        /// The socket closed under the scan (the adapter went away).
        case socketClosed(String)
    }

    /// Why the scan stopped.
    public var ending: Ending
    /// True when the extended scanning commands were used.
    public var extended: Bool
    /// Advertising reports delivered to the body.
    public var reports: Int
    /// Advertising report events that did not decode, and the first few errors (located).
    public var malformedReports: Int
    /// The located decode errors of the first eight malformed report events.
    public var malformedErrors: [DecodeError]
    /// Why the scan could not be disabled at the end, if it could not (the adapter may keep scanning).
    public var restoreFailure: String?

    /// An outcome with `ending` and `extended`, and nothing counted yet.
    public init(ending: Ending, extended: Bool) {
        self.ending = ending
        self.extended = extended
        reports = 0
        malformedReports = 0
        malformedErrors = []
        restoreFailure = nil
    }
}
