/// A wire decode failure, located at the byte offset where it was found.
///
/// Thrown with typed throws (`throws(DecodeError)`) so that the hot path never boxes an error.
public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// `needed` more bytes were required, only `available` were left.
        case truncated(needed: Int, available: Int)
        /// A field held a value the spec does not allow.
        case invalidValue(field: String, value: UInt64)
        /// An opcode, event code or type the decoder does not know.
        case unknownCode(kind: String, code: UInt16)
        /// A length field disagrees with the bytes present.
        case lengthMismatch(declared: Int, actual: Int)
        /// Bytes left over after a fixed-size structure.
        case trailingBytes(count: Int)
    }

    /// Offset of the problem from the start of the decoded buffer.
    public let offset: Int
    public let reason: Reason

    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .truncated(let needed, let available):
            "at byte \(offset): truncated, needed \(needed) bytes, \(available) left"
        case .invalidValue(let field, let value):
            "at byte \(offset): invalid \(field) 0x\(String(value, radix: 16))"
        case .unknownCode(let kind, let code):
            "at byte \(offset): unknown \(kind) 0x\(String(code, radix: 16))"
        case .lengthMismatch(let declared, let actual):
            "at byte \(offset): length field says \(declared), \(actual) bytes present"
        case .trailingBytes(let count):
            "at byte \(offset): \(count) unexpected trailing bytes"
        }
    }
}
