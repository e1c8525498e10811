/// The 64-octet Supported_Commands bitmap of HCI_Read_Local_Supported_Commands (Core 5.4 Vol 4 Part E
/// §6.27): octet N bit B set means the controller supports the command assigned to that bit. Which bit
/// belongs to which command is in Specs/ble/hci-commands.csv (`supported` column), generated as each
/// command's `supportedCommandsBit`.
public struct HCISupportedCommands: Sendable, Hashable {
    public let octets: [UInt8]

    /// `octets` shorter than 64 read as zero past their end.
    public init(octets: [UInt8]) { self.octets = octets }

    public init(_ parameters: HCIReadLocalSupportedCommands.ReturnParameters) {
        self.init(octets: parameters.supportedCommands)
    }

    /// True when the bit at `octet`.`bit` is set.
    public func isSet(octet: Int, bit: Int) -> Bool {
        guard octet >= 0, octet < octets.count, (0..<8).contains(bit) else { return false }
        return octets[octet] & (1 << bit) != 0
    }

    /// True when the controller reports `Command`; false for a command without a bit.
    public func supports<Command: HCICommandPacket>(_: Command.Type) -> Bool {
        guard let position = Command.supportedCommandsBit else { return false }
        return isSet(octet: position.octet, bit: position.bit)
    }

    /// True when the controller reports the command with this opcode (among the table's commands).
    public func supports(opcode: UInt16) -> Bool {
        guard let entry = HCICommand.table.first(where: { $0.opcode == opcode }), let position = entry.supported else {
            return false
        }
        return isSet(octet: position.octet, bit: position.bit)
    }

    /// A bitmap with exactly the given commands' bits set (for fakes and tests).
    public init(supporting commands: [any HCICommandPacket.Type]) {
        var octets = [UInt8](repeating: 0, count: 64)
        for command in commands {
            if let position = command.supportedCommandsBit { octets[position.octet] |= 1 << position.bit }
        }
        self.init(octets: octets)
    }
}
