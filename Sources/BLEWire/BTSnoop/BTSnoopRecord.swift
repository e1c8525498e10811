/// The btsnoop capture format (as written by BlueZ's btsnoop and read by Wireshark and `btmon -r`):
/// a 16-octet file header, then records, every integer big-endian.
///
///     file:   "btsnoop\0" (8) | version = 1 (4) | datalink (4)
///     record: original length (4) | included length (4) | flags (4) | cumulative drops (4)
///             | timestamp (8, signed, microseconds since 0000-01-01 00:00 in the btsnoop epoch) | data
///
/// With datalink 1002 (H4) each record's data starts with the H4 packet indicator. Flags: bit 0 is
/// the direction (0 host → controller, 1 controller → host), bit 1 is set for commands and events.
public struct BTSnoopRecord: Sendable, Hashable {
    /// The file identification pattern.
    public static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    /// The only version there is.
    public static let version: UInt32 = 1
    /// Datalink type of H4 captures: each record starts with the packet indicator.
    public static let datalinkH4: UInt32 = 1002
    /// Octets of the file header and of each record header.
    public static let fileHeaderLength = 16
    public static let headerLength = 24
    /// Microseconds from 0000-01-01 (btsnoop's epoch) to 1970-01-01.
    public static let unixEpochOffset: Int64 = 0x00dc_ddb3_0f2f_8000

    /// True for controller → host.
    public var received: Bool
    /// The H4 packet indicator of the captured packet.
    public var indicator: HCIPacketIndicator
    /// Microseconds since 1970-01-01 UTC.
    public var unixMicroseconds: Int64
    /// The captured packet without its indicator.
    public var packet: [UInt8]
    public var originalLength: Int
    public var drops: UInt32

    public init(
        received: Bool,
        indicator: HCIPacketIndicator,
        unixMicroseconds: Int64,
        packet: [UInt8],
        originalLength: Int? = nil,
        drops: UInt32 = 0
    ) {
        self.received = received
        self.indicator = indicator
        self.unixMicroseconds = unixMicroseconds
        self.packet = packet
        self.originalLength = originalLength ?? packet.count + 1
        self.drops = drops
    }

    /// The record flags: direction in bit 0, command-or-event in bit 1.
    public static func flags(received: Bool, indicator: HCIPacketIndicator) -> UInt32 {
        let control: UInt32 = indicator == .command || indicator == .event ? 2 : 0
        return control | (received ? 1 : 0)
    }

    /// Appends the file header.
    public static func encodeFileHeader(into writer: inout ByteWriter) {
        writer.write(contentsOf: magic)
        writer.writeBigEndian(UInt64(version), width: 4)
        writer.writeBigEndian(UInt64(datalinkH4), width: 4)
    }

    /// Appends one record header for an H4 packet of `length` octets (indicator included), to be
    /// followed by the indicator and the packet.
    public static func encodeHeader(
        into writer: inout ByteWriter,
        length: Int,
        received: Bool,
        indicator: HCIPacketIndicator,
        unixMicroseconds: Int64,
        drops: UInt32 = 0
    ) {
        writer.writeBigEndian(UInt64(length), width: 4)
        writer.writeBigEndian(UInt64(length), width: 4)
        writer.writeBigEndian(UInt64(flags(received: received, indicator: indicator)), width: 4)
        writer.writeBigEndian(UInt64(drops), width: 4)
        writer.writeBigEndian(UInt64(bitPattern: unixMicroseconds + unixEpochOffset), width: 8)
    }

    /// Appends the whole record.
    public func encode(into writer: inout ByteWriter) {
        Self.encodeHeader(
            into: &writer,
            length: packet.count + 1,
            received: received,
            indicator: indicator,
            unixMicroseconds: unixMicroseconds,
            drops: drops
        )
        writer.write(indicator.rawValue)
        writer.write(contentsOf: packet)
    }

    /// Parses a whole btsnoop file (H4 datalink); errors are located at the offending octet.
    public static func parseFile(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> [BTSnoopRecord] {
        var reader = ByteReader(bytes)
        try reader.require(fileHeaderLength)
        let pattern = try reader.readBytes(8)
        guard pattern.elementsEqual(magic) else {
            throw DecodeError(offset: 0, reason: .invalidValue(field: "btsnoop magic", value: UInt64(pattern[0])))
        }
        let version = try reader.readBigEndian(4)
        guard version == UInt64(Self.version) else {
            throw DecodeError(offset: 8, reason: .invalidValue(field: "version", value: version))
        }
        let datalink = try reader.readBigEndian(4)
        guard datalink == UInt64(datalinkH4) else {
            throw DecodeError(offset: 12, reason: .invalidValue(field: "datalink", value: datalink))
        }
        var records: [BTSnoopRecord] = []
        while !reader.isAtEnd {
            let start = reader.offset
            let original = Int(try reader.readBigEndian(4))
            let included = Int(try reader.readBigEndian(4))
            let flags = try reader.readBigEndian(4)
            let drops = UInt32(try reader.readBigEndian(4))
            let rawStamp = try reader.readBigEndian(8)
            // Microseconds since year 0 as an unsigned 64-bit count: past 2^63 (the year 292,000 or so) it is
            // not a time, and would overflow on the way to Unix time.
            guard rawStamp < 1 << 63 else {
                throw DecodeError(offset: start + 16, reason: .invalidValue(field: "timestamp", value: rawStamp))
            }
            let stamp = Int64(rawStamp)
            guard included >= 1 else {
                throw DecodeError(offset: start + 4, reason: .invalidValue(field: "included length", value: 0))
            }
            let data = try reader.readBytes(included)
            guard let indicator = HCIPacketIndicator(rawValue: data[0]) else {
                throw DecodeError(
                    offset: start + headerLength,
                    reason: .invalidValue(field: "indicator", value: UInt64(data[0]))
                )
            }
            let expected = Self.flags(received: flags & 1 != 0, indicator: indicator)
            guard flags & 3 == expected else {
                throw DecodeError(offset: start + 8, reason: .invalidValue(field: "flags", value: flags))
            }
            records.append(
                BTSnoopRecord(
                    received: flags & 1 != 0,
                    indicator: indicator,
                    unixMicroseconds: stamp - unixEpochOffset,
                    packet: Array(data[1...]),
                    originalLength: original,
                    drops: drops
                )
            )
        }
        return records
    }
}

extension ByteWriter {
    /// Appends the low `width` octets of `value`, most significant first.
    public mutating func writeBigEndian(_ value: UInt64, width: Int) {
        for index in stride(from: width - 1, through: 0, by: -1) {
            write(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}

extension ByteReader {
    /// Reads `width` octets as a big-endian integer.
    public mutating func readBigEndian(_ width: Int) throws(DecodeError) -> UInt64 {
        let bytes = try readBytes(width)
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        return value
    }
}
