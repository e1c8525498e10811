/// An ATT Error Response from the peer (Core 5.4 Vol 3 Part F §3.4.1.1): which request failed, on which
/// handle, and why.
public struct ATTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The one-byte ATT error code (Core 5.4 Vol 3 Part F §3.4.1.1 Table 3.4; CSS Part B §1.2 for the
    /// common profile codes 0xFC–0xFF).
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let invalidHandle = Code(rawValue: 0x01)
        public static let readNotPermitted = Code(rawValue: 0x02)
        public static let writeNotPermitted = Code(rawValue: 0x03)
        public static let invalidPDU = Code(rawValue: 0x04)
        public static let insufficientAuthentication = Code(rawValue: 0x05)
        public static let requestNotSupported = Code(rawValue: 0x06)
        public static let invalidOffset = Code(rawValue: 0x07)
        public static let insufficientAuthorization = Code(rawValue: 0x08)
        public static let prepareQueueFull = Code(rawValue: 0x09)
        public static let attributeNotFound = Code(rawValue: 0x0A)
        public static let attributeNotLong = Code(rawValue: 0x0B)
        public static let encryptionKeySizeTooShort = Code(rawValue: 0x0C)
        public static let invalidAttributeValueLength = Code(rawValue: 0x0D)
        public static let unlikelyError = Code(rawValue: 0x0E)
        public static let insufficientEncryption = Code(rawValue: 0x0F)
        public static let unsupportedGroupType = Code(rawValue: 0x10)
        public static let insufficientResources = Code(rawValue: 0x11)
        public static let databaseOutOfSync = Code(rawValue: 0x12)
        public static let valueNotAllowed = Code(rawValue: 0x13)
        public static let cccdImproperlyConfigured = Code(rawValue: 0xFD)
        public static let outOfRange = Code(rawValue: 0xFF)
    }

    public let code: Code
    /// The handle the error is about (0 where the request had none).
    public let handle: UInt16
    /// The opcode of the request that failed.
    public let request: UInt8

    public init(code: Code, handle: UInt16, request: UInt8) {
        self.code = code
        self.handle = handle
        self.request = request
    }

    public var description: String {
        "ATT error 0x\(hex(code.rawValue)) on handle 0x\(hex(handle)) for request 0x\(hex(request))"
    }
}

func hex(_ value: some BinaryInteger) -> String { String(value, radix: 16, uppercase: true) }
