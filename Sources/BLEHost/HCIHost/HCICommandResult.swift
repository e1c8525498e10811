public import BLEWire

/// How the controller answered a command.
public enum HCICommandResult: Sendable, Hashable {
    /// Command Complete, with the command's return parameters (the first is usually its status).
    case complete(returnParameters: [UInt8])
    /// Command Status: the command was accepted (0x00) or refused; its outcome comes as a later event.
    case status(UInt8)

    /// The status octet: Command Status's, or the first return parameter of Command Complete.
    public var status: UInt8? {
        switch self {
        case .complete(let parameters): parameters.first
        case .status(let status): status
        }
    }

    /// `status` as an HCI error code.
    public var hciStatus: HCIStatus? { status.map(HCIStatus.init(rawValue:)) }
}
