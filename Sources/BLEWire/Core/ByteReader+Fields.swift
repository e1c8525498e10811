extension ByteReader {
    /// A reader over the next `count` bytes only, with offsets still counted from the start of the
    /// whole buffer (so errors stay located). Use it for a length-delimited part, then move past it
    /// with `skip(count)` on this reader.
    @inlinable
    public func limited(to count: Int) throws(DecodeError) -> ByteReader {
        try require(count)
        let end = offset + count
        return ByteReader(UnsafeRawBufferPointer(rebasing: bytes[..<end]), offset: offset)
    }

    /// The next byte without consuming it.
    @inlinable
    public func peekUInt8() throws(DecodeError) -> UInt8 {
        try require(1)
        return bytes[offset]
    }

    /// The next little-endian 16-bit value without consuming it.
    @inlinable
    public func peekUInt16() throws(DecodeError) -> UInt16 {
        try require(2)
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// Reads a six-octet BD_ADDR (least significant octet first) of the given type.
    @inlinable
    public mutating func readAddress(
        type: BluetoothAddress.AddressType = .public
    ) throws(DecodeError)
        -> BluetoothAddress
    {
        BluetoothAddress(value: try readLittleEndian(6), type: type)
    }
}

extension ByteWriter {
    /// Writes a BD_ADDR as six octets, least significant first.
    public mutating func write(_ address: BluetoothAddress) { writeLittleEndian(address.value, width: 6) }
}

extension ByteReader {
    /// Reads elements until only `trailing` bytes are left (the list fills the rest of the PDU).
    @inlinable
    public mutating func readList<Element>(
        trailing: Int = 0,
        _ element: (inout ByteReader) throws(DecodeError) -> Element
    ) throws(DecodeError) -> [Element] {
        var elements: [Element] = []
        while remaining > trailing { elements.append(try element(&self)) }
        return elements
    }

    /// Reads a count octet, then that many elements.
    @inlinable
    public mutating func readCountedList<Element>(
        _ element: (inout ByteReader) throws(DecodeError) -> Element
    ) throws(DecodeError) -> [Element] {
        let count = Int(try readUInt8())
        var elements: [Element] = []
        elements.reserveCapacity(min(count, remaining))
        for _ in 0..<count { elements.append(try element(&self)) }
        return elements
    }
}

extension ByteWriter {
    /// Writes exactly `count` octets: `bytes` cut or zero-padded to that size.
    public mutating func writeFixed(_ bytes: [UInt8], count: Int) {
        write(contentsOf: bytes.prefix(count))
        for _ in min(bytes.count, count)..<count { write(UInt8(0)) }
    }
}
