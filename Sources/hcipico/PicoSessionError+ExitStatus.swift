import PicoLink

extension PicoSessionError {
    /// The exit status of a failed Pico command: the link lost, no answer in time, the device's refusal
    /// or an answer that is not an EmStat Pico's.
    var exitStatus: ExitStatus {
        switch self {
        case .connectionLost: .connectionLost
        case .gatt(let error): error.exitStatus
        case .notAPico, .device: .deviceError
        case .invalidScript: .badInput
        case .timeout: .timeout
        case .cancelled: .interrupted
        case .busy: .failure
        }
    }
}

extension SerialLinkError {
    /// The exit status of a serial link that could not be opened or stopped working.
    var exitStatus: ExitStatus {
        switch self {
        case .connectionLost: .connectionLost
        case .gatt(let error): error.exitStatus
        case .noSerialService: .deviceError
        }
    }
}
