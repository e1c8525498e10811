import DeviceLinks

extension LinkOpenError {
    /// The exit status of a link that could not be opened: the one place a link's failure becomes one.
    var exitStatus: ExitStatus {
        switch cause {
        case .badInput: .badInput
        case .system(let error): error.exitStatus
        case .host(let error): error.exitStatus
        case .gatt(let error): error.exitStatus
        case .session(let error): error.exitStatus
        case .securityFailed: .securityFailed
        case .bondNotKept: .writeFailed
        case .simulator: .failure
        }
    }
}
