public import Coordination
public import DeviceLinks
public import PicoLink

/// How a `ScriptRun` ended, for the program to give its status. What happened was said on the run's
/// logger already.
public enum ScriptRunOutcome: Sendable {
    /// The run reached its end with every package recorded.
    case complete
    /// A stop (a signal, a closed output) ended it, before or during the run.
    case stopped(StopReason)
    /// The link or the Pico session could not be opened.
    case linkFailed(LinkOpenError)
    /// The session failed: no version reply, or the upload.
    case sessionFailed(PicoSessionError)
    /// An output appeared after the outputs were checked and would have been replaced.
    case outputExists
    /// An output could not be written; the run was aborted.
    case writeFailed
    /// An output lost its reader (`| head`).
    case outputClosed
    /// A package passed one of the run's limits: the run was stopped.
    case limitPassed
    /// The device reported an error.
    case deviceError
    /// The link was lost during the run.
    case connectionLost
}
