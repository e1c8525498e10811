public import BLEWire

/// An ATT Error Response from the peer (Core 5.4 Vol 3 Part F §3.4.1.1): which request failed, on which
/// handle, and why.
public struct ATTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error the peer gave (for example Insufficient Authentication, 0x05).
    public let code: ATTErrorCode
    /// The handle the error is about (0 where the request had none).
    public let handle: UInt16
    /// The opcode of the request that failed.
    public let request: UInt8

    /// Creates an error as an Error Response would report it; `request` is the failed request's opcode.
    public init(code: ATTErrorCode, handle: UInt16, request: UInt8) {
        self.code = code
        self.handle = handle
        self.request = request
    }

    /// For logs: the error code, the handle in hex, and the request by its spec name where known.
    public var description: String {
        let code = padded(request, 2)
        let opcode = ATTOpcode(rawValue: request).map { "\($0.specName) (0x\(code))" } ?? "request 0x\(code)"
        return "ATT error \(self.code) on handle 0x\(padded(handle, 4)) for \(opcode)"
    }
}

/// Uppercase hex digits, zero-padded to `width`.
private func padded(_ value: some BinaryInteger, _ width: Int) -> String {
    let digits = hex(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

func hex(_ value: some BinaryInteger) -> String { String(value, radix: 16, uppercase: true) }
