public import BLEWire

/// An ATT Error Response from the peer (Core 5.4 Vol 3 Part F §3.4.1.1): which request failed, on which
/// handle, and why.
public struct ATTError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: ATTErrorCode
    /// The handle the error is about (0 where the request had none).
    public let handle: UInt16
    /// The opcode of the request that failed.
    public let request: UInt8

    public init(code: ATTErrorCode, handle: UInt16, request: UInt8) {
        self.code = code
        self.handle = handle
        self.request = request
    }

    public var description: String {
        "ATT error \(code) on handle 0x\(hex(handle)) for request 0x\(hex(request))"
    }
}

func hex(_ value: some BinaryInteger) -> String { String(value, radix: 16, uppercase: true) }
