/// The Format and Information Data of an ATT_FIND_INFORMATION_RSP (Core 5.4 Vol 3 Part F §3.4.3.2):
/// a format octet (0x01: 16-bit UUIDs, 0x02: 128-bit UUIDs) and handle–UUID pairs that fill the PDU.
///
///     | format (1) | handle (2) | UUID (2 or 16) | handle (2) | UUID … |
///
/// Hand-written because the pair width depends on the format octet.
public struct ATTInformationData: WireCodable {
    /// One handle–UUID pair.
    public struct Pair: Sendable, Hashable {
        public var handle: UInt16
        public var uuid: BluetoothUUID

        public init(handle: UInt16, uuid: BluetoothUUID) {
            self.handle = handle
            self.uuid = uuid
        }
    }

    public var pairs: [Pair]

    public init(pairs: [Pair]) { self.pairs = pairs }

    /// Format octet plus one 16-bit pair.
    public static var minimumLength: Int { 5 }

    /// 0x01 when every UUID has a 16-bit form, else 0x02 (all pairs then carry 128-bit UUIDs).
    public var format: UInt8 { pairs.allSatisfy { $0.uuid.uuid16 != nil } ? 0x01 : 0x02 }

    public init(parsing reader: inout ByteReader) throws(DecodeError) {
        try reader.require(Self.minimumLength)
        let formatOffset = reader.offset
        let format = try reader.readUInt8()
        let width: Int
        switch format {
        case 0x01: width = 2
        case 0x02: width = 16
        default:
            throw DecodeError(offset: formatOffset, reason: .invalidValue(field: "format", value: UInt64(format)))
        }
        pairs = []
        pairs.reserveCapacity(reader.remaining / (2 + width))
        repeat {
            let handle = try reader.readUInt16()
            pairs.append(Pair(handle: handle, uuid: try BluetoothUUID(parsing: &reader, width: width)))
        } while !reader.isAtEnd
    }

    public func encode(into writer: inout ByteWriter) {
        let format = format
        writer.write(format)
        for pair in pairs {
            writer.write(pair.handle)
            pair.uuid.encode(into: &writer, width: format == 0x01 ? 2 : 16)
        }
    }
}
