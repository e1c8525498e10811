/// The Length and Attribute Data List of an ATT_READ_BY_GROUP_TYPE_RSP (Core 5.4 Vol 3 Part F
/// §3.4.4.10): a length octet (the size of each entry, 4 to 255), then entries of an attribute handle,
/// an end group handle and a value of length − 4 octets, filling the PDU.
///
///     | length (1) | handle (2) | end group handle (2) | value (length − 4) | handle … |
///
/// Hand-written because every entry's size comes from the leading length octet.
public struct ATTGroupAttributeDataList: WireCodable {
    public struct Entry: Sendable, Hashable {
        public var handle: UInt16
        public var endGroupHandle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, endGroupHandle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.endGroupHandle = endGroupHandle
            self.value = value
        }
    }

    /// Every entry's value has the same length; `encode` writes the first entry's length for all.
    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    public static var minimumLength: Int { 5 }

    public init(parsing reader: inout ByteReader) throws(DecodeError) {
        try reader.require(Self.minimumLength)
        let lengthOffset = reader.offset
        let length = Int(try reader.readUInt8())
        guard length >= 4 else {
            throw DecodeError(offset: lengthOffset, reason: .invalidValue(field: "length", value: UInt64(length)))
        }
        entries = []
        entries.reserveCapacity(reader.remaining / length)
        repeat {
            let handle = try reader.readUInt16()
            let end = try reader.readUInt16()
            entries.append(Entry(handle: handle, endGroupHandle: end, value: Array(try reader.readBytes(length - 4))))
        } while !reader.isAtEnd
    }

    public func encode(into writer: inout ByteWriter) {
        let valueLength = entries.first?.value.count ?? 0
        writer.write(UInt8(truncatingIfNeeded: valueLength + 4))
        for entry in entries {
            writer.write(entry.handle)
            writer.write(entry.endGroupHandle)
            writer.write(contentsOf: entry.value.prefix(valueLength))
            for _ in entry.value.count..<max(entry.value.count, valueLength) { writer.write(UInt8(0)) }
        }
    }
}
