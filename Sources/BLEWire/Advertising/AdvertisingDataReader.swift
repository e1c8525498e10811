/// One AD structure of advertising or scan response data, borrowed from the report's bytes.
public struct AdvertisingDataElement {
    public let type: AdvertisingDataType
    /// The AD data (length − 1 octets), borrowed: valid only while the report's bytes are.
    public let data: UnsafeRawBufferPointer
    /// Offset of the element's length octet in the advertising data.
    public let offset: Int

    @inlinable
    public init(type: AdvertisingDataType, data: UnsafeRawBufferPointer, offset: Int) {
        self.type = type
        self.data = data
        self.offset = offset
    }
}

/// Walks the AD structures of advertising or scan response data without copying or allocating
/// (Core 5.4 Vol 3 Part C §11: | length (1) | AD type (1) | AD data (length − 1) | …).
///
/// A length octet of 0 ends the significant part (the rest is padding); an AD structure running past
/// the end is a located truncation error.
public struct AdvertisingDataReader {
    @usableFromInline var reader: ByteReader

    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer) { reader = ByteReader(bytes) }

    /// The next AD structure, or nil at the end of the significant part.
    @inlinable
    public mutating func next() throws(DecodeError) -> AdvertisingDataElement? {
        guard !reader.isAtEnd else { return nil }
        let offset = reader.offset
        let length = Int(try reader.readUInt8())
        guard length > 0 else {
            reader.offset = reader.bytes.count
            return nil
        }
        guard reader.remaining >= length else {
            throw DecodeError(offset: offset, reason: .lengthMismatch(declared: length, actual: reader.remaining))
        }
        let type = AdvertisingDataType(rawValue: try reader.readUInt8())
        return AdvertisingDataElement(type: type, data: try reader.readBytes(length - 1), offset: offset)
    }
}
