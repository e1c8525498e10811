import BLEHost

extension GATTError {
    /// The exit status of a failed GATT operation: the device's refusal, a lost link, a timeout, or
    /// something asked that cannot be done (an unknown or ambiguous attribute, a value too long).
    var exitStatus: ExitStatus {
        switch self {
        case .att, .invalidResponse, .unexpectedResponse: .deviceError
        case .transactionTimeout: .timeout
        case .disconnected, .send, .serviceChanged: .connectionLost
        case .invalidArgument, .notFound: .badInput
        case .notStarted: .failure
        case .cancelled: .interrupted
        }
    }
}
