/// The Length Value Tuple List of an ATT_READ_MULTIPLE_VARIABLE_RSP (Core 5.4 Vol 3 Part F §3.4.4.12):
/// for each requested handle a 2-octet length and that many value octets. The server truncates the
/// list to fit the MTU, so the last value may be shorter than its length says; `declaredLength` keeps
/// what the length field said.
///
///     | length (2) | value (length) | length (2) | value … |
///
/// Hand-written because the truncation rule cannot be said in a table.
public struct ATTLengthValueList: WireCodable {
    public struct Tuple: Sendable, Hashable {
        /// The length field; equal to `value.count` except in a truncated last tuple.
        public var declaredLength: UInt16
        public var value: [UInt8]

        public init(value: [UInt8]) {
            self.declaredLength = UInt16(truncatingIfNeeded: value.count)
            self.value = value
        }

        public init(declaredLength: UInt16, value: [UInt8]) {
            self.declaredLength = declaredLength
            self.value = value
        }

        /// True when the server cut this value short.
        public var isTruncated: Bool { value.count < Int(declaredLength) }
    }

    public var tuples: [Tuple]

    public init(tuples: [Tuple]) { self.tuples = tuples }

    public static var minimumLength: Int { 0 }

    public init(parsing reader: inout ByteReader) throws(DecodeError) {
        tuples = []
        while !reader.isAtEnd {
            let length = try reader.readUInt16()
            let available = min(Int(length), reader.remaining)
            tuples.append(Tuple(declaredLength: length, value: Array(try reader.readBytes(available))))
        }
    }

    public func encode(into writer: inout ByteWriter) {
        for tuple in tuples {
            writer.write(tuple.declaredLength)
            writer.write(contentsOf: tuple.value)
        }
    }
}
