/// A value and the octets it must encode to, for round-trip tests of the codecs (the generated vectors
/// come from the spec tables' field layouts, computed by the generator apart from the Swift codecs).
package struct WireVector: Sendable {
    package let name: String
    package let bytes: [UInt8]
    package let minimumLength: Int
    /// Encodes the vector's value.
    package let encode: @Sendable () -> [UInt8]
    /// Decodes the whole buffer as the vector's type and compares it with the vector's value.
    package let decodesToValue: @Sendable (UnsafeRawBufferPointer) throws(DecodeError) -> Bool

    package init<Value: WireCodable>(_ name: String, _ value: Value, _ bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
        minimumLength = Value.minimumLength
        encode = { value.encodedBytes }
        decodesToValue = { buffer throws(DecodeError) in try Value(bytes: buffer) == value }
    }
}
