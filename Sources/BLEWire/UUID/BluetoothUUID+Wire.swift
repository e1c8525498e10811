extension BluetoothUUID {
    /// Reads a little-endian UUID of `width` octets: 2, 4 or 16. Any other width is an invalid value
    /// located at the UUID's first byte.
    @inlinable
    public init(parsing reader: inout ByteReader, width: Int) throws(DecodeError) {
        switch width {
        case 2: self.init(try reader.readUInt16())
        case 4: self.init(uuid32: try reader.readUInt32())
        case 16:
            let low = try reader.readUInt64()
            self.init(high: try reader.readUInt64(), low: low)
        default:
            throw DecodeError(offset: reader.offset, reason: .invalidValue(field: "UUID length", value: UInt64(width)))
        }
    }

    /// Reads an ATT UUID that fills the rest of `reader` except `trailing` bytes: 2 or 16 octets.
    @inlinable
    public init(attParsing reader: inout ByteReader, trailing: Int = 0) throws(DecodeError) {
        let width = reader.remaining - trailing
        guard width == 2 || width == 16 else {
            throw DecodeError(offset: reader.offset, reason: .invalidValue(field: "UUID length", value: UInt64(width)))
        }
        try self.init(parsing: &reader, width: width)
    }

    /// Writes `width` little-endian octets (2, 4 or 16). A 2- or 4-octet width needs a UUID with that
    /// short form; otherwise the 16-octet form is written.
    @inlinable
    public func encode(into writer: inout ByteWriter, width: Int) {
        if width == 2, let short = uuid16 {
            writer.write(short)
        } else if width == 4, let short = uuid32 {
            writer.write(short)
        } else {
            writer.write(low)
            writer.write(high)
        }
    }

    /// Writes the ATT form: 2 octets when the UUID has a 16-bit form, otherwise 16.
    @inlinable
    public func encode(into writer: inout ByteWriter) { encode(into: &writer, width: attWidth) }
}
