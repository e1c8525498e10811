/// An HCI command packet (Core 5.4 Vol 4 Part E §5.4.1): | opcode (2) | parameter length (1) | parameters |.
///
/// Every generated `HCI…` command conforms; commands answered by Command Complete also have a nested
/// `ReturnParameters` type to decode `HCICommandCompleteEvent.returnParameters` with.
public protocol HCICommandPacket: WireCodable {
    /// OGF << 10 | OCF.
    static var opcode: UInt16 { get }
    /// The command's bit in the Supported_Commands bitmap (§6.27), or nil when it has none.
    static var supportedCommandsBit: (octet: Int, bit: Int)? { get }
}

extension HCICommandPacket {
    /// The Opcode Group Field (upper 6 bits).
    public static var ogf: UInt8 { UInt8(truncatingIfNeeded: opcode >> 10) }
    /// The Opcode Command Field (lower 10 bits).
    public static var ocf: UInt16 { opcode & 0x03FF }
}
