/// A value with a fixed Bluetooth wire layout: decoded from borrowed bytes, encoded by appending.
///
/// Every generated PDU, command, event and list element conforms, and so do the hand-written field
/// types the generated code nests (`BluetoothUUID` lists, `ATTErrorCode`, `HCIStatus` …).
public protocol WireCodable: Sendable, Hashable {
    /// The fewest bytes a valid encoding has; decoders check this before reading.
    static var minimumLength: Int { get }
    /// Decodes one value from `reader`, leaving it after the value's last byte.
    init(parsing reader: inout ByteReader) throws(DecodeError)
    /// Appends the value's wire form.
    func encode(into writer: inout ByteWriter)
}

extension WireCodable {
    /// Decodes one value that must fill `bytes` exactly.
    @inlinable
    public init(bytes: UnsafeRawBufferPointer) throws(DecodeError) {
        var reader = ByteReader(bytes)
        self = try Self(parsing: &reader)
        try reader.expectEnd()
    }

    /// Decodes one value that must fill `bytes` exactly.
    public init(bytes: [UInt8]) throws(DecodeError) {
        let result: Result<Self, DecodeError> = bytes.withUnsafeBytes { buffer in
            do throws(DecodeError) { return .success(try Self(bytes: buffer)) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    /// The wire form in a new array (allocates: for tests and cold paths).
    public var encodedBytes: [UInt8] {
        var writer = ByteWriter(capacity: Self.minimumLength + 16)
        encode(into: &writer)
        return writer.bytes
    }
}
