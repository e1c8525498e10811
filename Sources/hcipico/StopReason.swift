#if canImport(Glibc)
import Glibc
#endif

/// Why a device command is ending before its work is done: a signal, or its output going away.
enum StopReason: Sendable, Equatable, CustomStringConvertible {
    /// SIGINT (Ctrl-C), SIGTERM (`systemctl stop`, `kill`) or SIGHUP (a closed terminal or SSH session).
    case signal(Int32)
    /// Standard output (or another output pipe) lost its reader: SIGPIPE or `EPIPE`, as with `| head`.
    case outputClosed

    /// The reason written into end markers: `interrupted (SIGTERM)`, `output closed`.
    var description: String {
        switch self {
        case .signal(let number): "interrupted (\(Self.name(of: number)))"
        case .outputClosed: "output closed"
        }
    }

    /// 130, 143 and 129 as a shell reports a death by that signal; 141 for a closed output (SIGPIPE).
    var exitStatus: ExitStatus {
        switch self {
        case .signal(SIGTERM): .terminated
        case .signal(SIGHUP): .hungUp
        case .signal: .interrupted
        case .outputClosed: .outputClosed
        }
    }

    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }
}
