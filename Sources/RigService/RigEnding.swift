public import Coordination

/// Why a rig ends: the first of a signal, `--for` running out, every schedule done, or the journal
/// failing.
public enum RigEnding: Sendable, CustomStringConvertible {
    /// SIGTERM or SIGINT.
    case signal(StopReason)
    /// The time the rig was asked to run for has elapsed.
    case duration
    /// Every device's schedule has run its last run.
    case schedulesDone
    /// The journal could not be written.
    case journalFailed(String)
    /// The status server could not listen (before any device started).
    case statusFailed(String)

    /// The ending, for the log and systemd's STOPPING status.
    public var description: String {
        switch self {
        case .signal(let reason): "\(reason)"
        case .duration: "--for elapsed"
        case .schedulesDone: "every schedule is done"
        case .journalFailed(let message): "the journal failed: \(message)"
        case .statusFailed(let message): message
        }
    }

    /// What the end of a run still open says.
    public var runReason: String {
        switch self {
        case .signal(let reason): "stopped (\(reason))"
        case .duration, .schedulesDone: "stopped"
        case .journalFailed: "stopped: the journal failed"
        case .statusFailed: "stopped"
        }
    }
}
