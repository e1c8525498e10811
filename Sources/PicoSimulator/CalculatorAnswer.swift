/// The ESP32-style calculator's protocol, one request and one answer:
///
/// - request (written to the calculator characteristic): exactly 3 bytes `[operand1, operand2, operator]`,
///   operands unsigned bytes (0–255), operator an ASCII byte `+` (0x2B), `-` (0x2D), `*` (0x2A) or `/` (0x2F);
/// - answer (notified on the same characteristic, and what a read returns): 5 bytes, the result as a
///   signed 32-bit little-endian integer, then a status byte: 0 ok, 1 divide by zero, 2 unknown
///   operator, 3 wrong length (the request was not 3 bytes). The result is 0 unless the status is 0.
///   Division truncates (`7 / 2` is 3).
public struct CalculatorAnswer: Sendable, Hashable, CustomStringConvertible {
    public enum Status: UInt8, Sendable, CaseIterable {
        case ok = 0
        case divideByZero = 1
        case unknownOperator = 2
        case wrongLength = 3
    }

    public static let byteCount = 5

    public let result: Int32
    public let status: Status

    public init(result: Int32, status: Status) {
        self.result = status == .ok ? result : 0
        self.status = status
    }

    /// Computes the answer to a request of any length (anything but 3 bytes is `.wrongLength`).
    public init(request: UnsafeRawBufferPointer) {
        guard request.count == 3 else {
            self.init(result: 0, status: .wrongLength)
            return
        }
        let a = Int32(request[0])
        let b = Int32(request[1])
        switch request[2] {
        case UInt8(ascii: "+"): self.init(result: a + b, status: .ok)
        case UInt8(ascii: "-"): self.init(result: a - b, status: .ok)
        case UInt8(ascii: "*"): self.init(result: a * b, status: .ok)
        case UInt8(ascii: "/"): self.init(result: b == 0 ? 0 : a / b, status: b == 0 ? .divideByZero : .ok)
        default: self.init(result: 0, status: .unknownOperator)
        }
    }

    /// Decodes a 5-byte answer; nil for any other length or an unknown status.
    public init?(bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == Self.byteCount, let status = Status(rawValue: bytes[4]) else { return nil }
        let raw = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        self.init(result: Int32(bitPattern: raw), status: status)
    }

    /// The 5 bytes on the wire.
    public var bytes: [UInt8] {
        let raw = UInt32(bitPattern: result)
        return [
            UInt8(truncatingIfNeeded: raw), UInt8(truncatingIfNeeded: raw >> 8),
            UInt8(truncatingIfNeeded: raw >> 16), UInt8(truncatingIfNeeded: raw >> 24), status.rawValue,
        ]
    }

    public var description: String {
        switch status {
        case .ok: "\(result)"
        case .divideByZero: "error: divide by zero"
        case .unknownOperator: "error: unknown operator"
        case .wrongLength: "error: wrong length (a request is 3 bytes)"
        }
    }
}
