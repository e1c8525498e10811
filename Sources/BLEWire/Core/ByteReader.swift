/// Reads little-endian Bluetooth wire fields from borrowed bytes, without copying or allocating.
///
/// The reader borrows `bytes`: use it inside `withUnsafeBytes` and do not let it escape.
///
/// The reads of one to two bytes, `require` and `readRemaining` are always inlined: a notification's
/// view takes four of them, and left to itself the optimizer calls each out of line.
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    /// Offset of the next unread byte (settable, to seek).
    public var offset: Int

    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Bytes not read yet.
    @inlinable public var remaining: Int { bytes.count - offset }
    @inlinable public var isAtEnd: Bool { offset >= bytes.count }

    /// Fails unless at least `count` bytes are left.
    @inlinable @inline(__always)
    public func require(_ count: Int) throws(DecodeError) {
        guard count >= 0, remaining >= count else {
            throw DecodeError(offset: offset, reason: .truncated(needed: count, available: remaining))
        }
    }

    @inlinable @inline(__always)
    public mutating func readUInt8() throws(DecodeError) -> UInt8 {
        try require(1)
        defer { offset += 1 }
        return bytes[offset]
    }

    @inlinable @inline(__always)
    public mutating func readInt8() throws(DecodeError) -> Int8 { Int8(bitPattern: try readUInt8()) }

    @inlinable @inline(__always)
    public mutating func readUInt16() throws(DecodeError) -> UInt16 {
        try require(2)
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    @inlinable
    public mutating func readUInt24() throws(DecodeError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(3))
    }

    @inlinable
    public mutating func readUInt32() throws(DecodeError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readLittleEndian(4))
    }

    @inlinable
    public mutating func readUInt64() throws(DecodeError) -> UInt64 { try readLittleEndian(8) }

    /// Reads an unsigned little-endian integer of `width` bytes (1 to 8).
    @inlinable
    public mutating func readLittleEndian(_ width: Int) throws(DecodeError) -> UInt64 {
        try require(width)
        var value: UInt64 = 0
        for index in 0..<width {
            value |= UInt64(bytes[offset + index]) << (8 * index)
        }
        offset += width
        return value
    }

    /// The next `count` bytes, borrowed.
    @inlinable
    public mutating func readBytes(_ count: Int) throws(DecodeError) -> UnsafeRawBufferPointer {
        try require(count)
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    /// Every byte left, borrowed.
    @inlinable @inline(__always)
    public mutating func readRemaining() -> UnsafeRawBufferPointer {
        defer { offset = bytes.count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset...])
    }

    @inlinable
    public mutating func skip(_ count: Int) throws(DecodeError) {
        try require(count)
        offset += count
    }

    /// Fails if any byte is left (for fixed-size structures).
    @inlinable
    public func expectEnd() throws(DecodeError) {
        guard isAtEnd else { throw DecodeError(offset: offset, reason: .trailingBytes(count: remaining)) }
    }
}
