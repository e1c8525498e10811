/// The 4-octet header of an HCI ACL Data packet (Core 5.4 Vol 4 Part E §5.4.2):
///
///     | handle (12 bits) | PB flag (2) | BC flag (2) | data total length (2 octets) |
///
/// Hand-written because the table's field model has no bit fields. The fields are checked on decode
/// only as far as the spec forbids values: every 12-bit handle and 2-bit flag is representable.
public struct HCIACLHeader: WireCodable {
    /// Packet_Boundary_Flag (§5.4.2).
    public enum PacketBoundary: UInt8, Sendable, Hashable, CaseIterable {
        /// First non-automatically-flushable packet of a higher-layer message (host to controller on LE).
        case firstNonFlushable = 0b00
        /// Continuing fragment.
        case continuing = 0b01
        /// First automatically-flushable packet (controller to host on LE).
        case firstFlushable = 0b10
        /// A complete L2CAP PDU, automatically flushable (deprecated).
        case complete = 0b11
    }

    public static var minimumLength: Int { 4 }

    /// Connection_Handle, 0x0000–0x0EFF.
    public var handle: UInt16
    public var packetBoundary: PacketBoundary
    /// Broadcast_Flag: 0b00 point-to-point on LE.
    public var broadcast: UInt8
    /// Data_Total_Length: the octets after this header.
    public var length: UInt16

    public init(handle: UInt16, packetBoundary: PacketBoundary, broadcast: UInt8 = 0, length: UInt16) {
        self.handle = handle & 0x0FFF
        self.packetBoundary = packetBoundary
        self.broadcast = broadcast & 0b11
        self.length = length
    }

    /// True when this packet starts an L2CAP PDU (not a continuation).
    @inlinable public var isFirstFragment: Bool { packetBoundary != .continuing }

    @inlinable
    public init(parsing reader: inout ByteReader) throws(DecodeError) {
        try reader.require(Self.minimumLength)
        let word = try reader.readUInt16()
        handle = word & 0x0FFF
        packetBoundary = PacketBoundary(rawValue: UInt8(truncatingIfNeeded: word >> 12) & 0b11)!
        broadcast = UInt8(truncatingIfNeeded: word >> 14)
        length = try reader.readUInt16()
    }

    public func encode(into writer: inout ByteWriter) {
        writer.write(handle & 0x0FFF | UInt16(packetBoundary.rawValue) << 12 | UInt16(broadcast & 0b11) << 14)
        writer.write(length)
    }
}
