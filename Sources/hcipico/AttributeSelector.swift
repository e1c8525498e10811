import ArgumentParser
import BLEHost
import BLEWire

/// How a `gatt` command names an attribute: a handle written `0x…` (as `services` prints them), or a
/// UUID (`2A00`, `0000FEED`, or the 128-bit form) that must name exactly one characteristic or descriptor.
enum AttributeSelector: Equatable, CustomStringConvertible {
    case handle(UInt16)
    case uuid(BluetoothUUID)

    /// Parses the argument; the error says what was wrong with it.
    init(parsing text: String) throws(ValidationError) {
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            guard !digits.isEmpty, digits.count <= 4, let value = UInt16(digits, radix: 16) else {
                throw ValidationError("'\(text)' is not a handle: a handle is 0x0001 to 0xFFFF")
            }
            guard value != 0 else {
                throw ValidationError("'\(text)': handle 0x0000 does not exist (handles start at 0x0001)")
            }
            self = .handle(value)
            return
        }
        guard let uuid = BluetoothUUID(text) else {
            throw ValidationError(
                "'\(text)' is neither a handle (0x0003) nor a UUID (2A00, 0000FEED or "
                    + "569a2000-b87f-490c-92cb-11ba5ea5167c)"
            )
        }
        self = .uuid(uuid)
    }

    var description: String {
        switch self {
        case .handle(let handle): "0x" + hex4(handle)
        case .uuid(let uuid): uuid.description
        }
    }

    /// The handle to read or write: the handle itself, or the one attribute the UUID names (found by
    /// discovering the whole profile).
    func handle(on client: GATTClient) async throws(GATTError) -> UInt16 {
        switch self {
        case .handle(let handle): return handle
        case .uuid(let uuid): return try await client.discoverProfile().attribute(withUUID: uuid).handle
        }
    }

    /// The handle in a discovered profile: the handle itself, or the one attribute the UUID names.
    func handle(in profile: GATTProfile) throws(GATTError) -> UInt16 {
        switch self {
        case .handle(let handle): return handle
        case .uuid(let uuid): return try profile.attribute(withUUID: uuid).handle
        }
    }

    /// The characteristic this names: by UUID, or the one whose declaration or value is at the handle.
    func characteristic(in profile: GATTProfile) throws(GATTError) -> GATTCharacteristic {
        switch self {
        case .uuid(let uuid): return try profile.characteristic(withUUID: uuid)
        case .handle(let handle):
            guard let found = profile.characteristic(at: handle) else {
                throw .notFound("no characteristic declared or valued at handle 0x\(hex4(handle))")
            }
            return found
        }
    }
}

/// Four uppercase hex digits.
func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
}
