import BLEHost

extension HCIHostError {
    /// The exit status of a failure on hcipico's own HCI host path.
    var exitStatus: ExitStatus {
        switch self {
        case .connectTimeout, .scanTimeout, .commandTimeout: .timeout
        case .cancelled: .interrupted
        case .unsupported, .commandFailed, .invalidResponse, .connectFailed, .notRunning, .disconnected, .transport:
            .connectionLost
        }
    }
}
