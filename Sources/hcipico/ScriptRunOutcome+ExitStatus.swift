import DeviceRuns

extension ScriptRunOutcome {
    /// The status `connect` exits with after its run.
    var exitStatus: ExitStatus {
        switch self {
        case .complete: .success
        case .stopped(let reason): reason.exitStatus
        case .linkFailed(let error): error.exitStatus
        case .sessionFailed(let error): error.exitStatus
        case .outputExists: .badInput
        case .writeFailed: .writeFailed
        case .outputClosed: .outputClosed
        case .limitPassed: .limitPassed
        case .deviceError: .deviceError
        case .connectionLost: .connectionLost
        }
    }
}
