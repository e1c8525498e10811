import Coordination
import Terminal

extension Shutdown {
    /// Catches the signals, the stop path's own messages on standard error.
    func install(cleanupBound: Duration = .seconds(5)) {
        install(cleanupBound: cleanupBound, report: StandardError.report)
    }

    /// Reports a failure and gives its status, unless a stop caused it: then the stop is reported and
    /// its status given.
    func failure(_ message: String, _ status: ExitStatus) -> ExitStatus {
        if let reason {
            StandardError.report("\(reason)")
            return reason.exitStatus
        }
        StandardError.report(message)
        return status
    }
}
