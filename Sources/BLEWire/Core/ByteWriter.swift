/// Appends little-endian Bluetooth wire fields to a growable buffer.
///
/// Reuse one writer per link and call `reset()` between PDUs: the capacity is kept, so encoding on the
/// hot path does not allocate.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inlinable public var count: Int { bytes.count }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    public mutating func write(_ value: UInt8) { bytes.append(value) }
    public mutating func write(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }
    public mutating func write(_ value: UInt16) { writeLittleEndian(UInt64(value), width: 2) }
    public mutating func write(_ value: UInt32) { writeLittleEndian(UInt64(value), width: 4) }
    public mutating func write(_ value: UInt64) { writeLittleEndian(value, width: 8) }

    /// Writes the low `width` bytes of `value`, least significant first.
    public mutating func writeLittleEndian(_ value: UInt64, width: Int) {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    public mutating func write(contentsOf other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }
    public mutating func write(contentsOf other: UnsafeRawBufferPointer) { bytes.append(contentsOf: other) }

    /// Overwrites one byte already written at `offset` (for one-octet length fields).
    public mutating func patch(_ value: UInt8, at offset: Int) { bytes[offset] = value }

    /// Drops everything past the first `count` bytes (no-op when shorter).
    public mutating func truncate(to count: Int) {
        if bytes.count > count { bytes.removeLast(bytes.count - count) }
    }

    /// Overwrites a 16-bit little-endian value already written at `offset` (for length fields).
    public mutating func patch(_ value: UInt16, at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
    }

    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = bytes.withUnsafeBytes { buffer in
            do throws(E) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
