public import BLEWire

/// How an attribute is named: a handle written `0x…` (as `hcipico gatt services` prints them), or a
/// UUID (`2A00`, `0000FEED`, or the 128-bit form) that must name exactly one characteristic or descriptor.
public enum AttributeSelector: Sendable, Equatable, CustomStringConvertible {
    case handle(UInt16)
    case uuid(BluetoothUUID)

    /// Why a text is not an attribute; its description says what an attribute looks like.
    public struct SyntaxError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, with the text given.
        public let description: String
    }

    /// Parses the argument; the error says what was wrong with it.
    public init(parsing text: String) throws(SyntaxError) {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            guard !digits.isEmpty, digits.count <= 4, let value = UInt16(digits, radix: 16) else {
                throw SyntaxError(description: "'\(text)' is not a handle: a handle is 0x0001 to 0xFFFF")
            }
            guard value != 0 else {
                throw SyntaxError(description: "'\(text)': handle 0x0000 does not exist (handles start at 0x0001)")
            }
            self = .handle(value)
            return
        }
        guard let uuid = BluetoothUUID(text) else {
            throw SyntaxError(
                description:
                    "'\(text)' is neither a handle (0x0003) nor a UUID (2A00, 0000FEED or "
                    + "569a2000-b87f-490c-92cb-11ba5ea5167c)"
            )
        }
        self = .uuid(uuid)
    }

    /// `0x002A` or the UUID.
    public var description: String {
        switch self {
        case .handle(let handle): AttributeValueText.handle(handle)
        case .uuid(let uuid): uuid.description
        }
    }

    /// The handle to read or write: the handle itself, or the one attribute the UUID names (found by
    /// discovering the whole profile).
    public func handle(on client: GATTClient) async throws(GATTError) -> UInt16 {
        switch self {
        case .handle(let handle): return handle
        case .uuid(let uuid): return try await client.discoverProfile().attribute(withUUID: uuid).handle
        }
    }

    /// The handle in a discovered profile: the handle itself, or the one attribute the UUID names.
    public func handle(in profile: GATTProfile) throws(GATTError) -> UInt16 {
        switch self {
        case .handle(let handle): return handle
        case .uuid(let uuid): return try profile.attribute(withUUID: uuid).handle
        }
    }

    /// The characteristic this names: by UUID, or the one whose declaration or value is at the handle.
    public func characteristic(in profile: GATTProfile) throws(GATTError) -> GATTCharacteristic {
        switch self {
        case .uuid(let uuid): return try profile.characteristic(withUUID: uuid)
        case .handle(let handle):
            guard let found = profile.characteristic(at: handle) else {
                throw .notFound("no characteristic declared or valued at handle \(AttributeValueText.handle(handle))")
            }
            return found
        }
    }
}
