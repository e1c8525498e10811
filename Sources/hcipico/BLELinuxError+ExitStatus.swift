import BLELinux

extension BLELinuxError {
    /// The exit status that tells a rig's script what went wrong.
    var exitStatus: ExitStatus {
        switch kind {
        case .noBluetooth: .noBluetooth
        case .noPermission: .noPermission
        case .noAdapter: .noAdapter
        case .adapterDown, .adapterUp: .adapterDown
        case .busy: .busy
        case .timedOut: .timeout
        case .cancelled: .interrupted
        case .refused: .connectionLost
        case .securityFailed: .securityFailed
        case .unresolvedHost: .badInput
        case .system: .failure
        }
    }
}
