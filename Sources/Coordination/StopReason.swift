#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a run or a program is ending before its work is done: a signal, or its output going away.
public enum StopReason: Sendable, Equatable, CustomStringConvertible {
    /// SIGINT (Ctrl-C), SIGTERM (`systemctl stop`, `kill`) or SIGHUP (a closed terminal or SSH session).
    case signal(Int32)
    /// Standard output (or another output pipe) lost its reader: SIGPIPE or `EPIPE`, as with `| head`.
    case outputClosed

    /// The reason written into end markers: `interrupted (SIGTERM)`, `output closed`.
    public var description: String {
        switch self {
        case .signal(let number): "interrupted (\(Self.name(of: number)))"
        case .outputClosed: "output closed"
        }
    }

    /// The exit status a shell reports for a death by this stop: 130 (SIGINT), 143 (SIGTERM), 129
    /// (SIGHUP) and 141 for a closed output (SIGPIPE); 130 for any other signal.
    public var exitCode: Int32 {
        switch self {
        case .signal(SIGTERM): 128 + SIGTERM
        case .signal(SIGHUP): 128 + SIGHUP
        case .signal: 128 + SIGINT
        case .outputClosed: 128 + SIGPIPE
        }
    }

    /// A signal's name (`SIGTERM`), or `signal N` for one without a name here.
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }
}
