import Coordination

extension StopReason {
    /// 130, 143 and 129 as a shell reports a death by that signal; 141 for a closed output (SIGPIPE).
    var exitStatus: ExitStatus { ExitStatus(rawValue: exitCode) ?? .interrupted }
}
