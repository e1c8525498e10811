import PicoLink

#if canImport(Glibc)
import Glibc
#endif

extension StopReason {
    /// 130, 143 and 129 as a shell reports a death by that signal; 141 for a closed output (SIGPIPE).
    var exitStatus: ExitStatus {
        switch self {
        case .signal(SIGTERM): .terminated
        case .signal(SIGHUP): .hungUp
        case .signal: .interrupted
        case .outputClosed: .outputClosed
        }
    }
}
