public import BLEWire

/// A service found on the peer: its declaration handle, the last handle of its group, and its UUID.
public struct GATTService: Sendable, Hashable, CustomStringConvertible {
    /// The service's type, from its declaration.
    public let uuid: BluetoothUUID
    /// The handle of the service declaration, where the service's group of attributes starts.
    public let handle: UInt16
    /// The last handle of the service's group.
    public let endHandle: UInt16
    /// Whether the service was discovered as a primary service; false for one reached through an Include
    /// declaration, whichever kind it is.
    public let isPrimary: Bool

    /// Creates a service as discovery reports it.
    public init(uuid: BluetoothUUID, handle: UInt16, endHandle: UInt16, isPrimary: Bool = true) {
        self.uuid = uuid
        self.handle = handle
        self.endHandle = endHandle
        self.isPrimary = isPrimary
    }

    /// `service <UUID> 0x<handle>–0x<endHandle>`, handles in hex.
    public var description: String { "service \(uuid) 0x\(hex(handle))–0x\(hex(endHandle))" }
}

/// An Include declaration found inside a service: where it is, and the service it includes.
public struct GATTIncludedService: Sendable, Hashable {
    /// The handle of the Include declaration inside the including service.
    public let declarationHandle: UInt16
    /// The included service: its UUID and handle range (`isPrimary` is false).
    public let service: GATTService

    /// Creates an include as discovery reports it.
    public init(declarationHandle: UInt16, service: GATTService) {
        self.declarationHandle = declarationHandle
        self.service = service
    }
}

/// A characteristic found on the peer. `endHandle` is the last handle of its descriptors.
public struct GATTCharacteristic: Sendable, Hashable, CustomStringConvertible {
    /// The characteristic's type, from its declaration.
    public let uuid: BluetoothUUID
    /// The handle of the characteristic declaration.
    public let declarationHandle: UInt16
    /// The handle of the value: what reads, writes and notifications address.
    public let valueHandle: UInt16
    /// The operations the declaration says the value supports.
    public let properties: GATTCharacteristicProperties
    /// The last handle that may hold one of its descriptors: the one before the next characteristic
    /// declaration, or the end of the service.
    public let endHandle: UInt16

    /// Creates a characteristic as discovery reports it.
    public init(
        uuid: BluetoothUUID,
        declarationHandle: UInt16,
        valueHandle: UInt16,
        properties: GATTCharacteristicProperties,
        endHandle: UInt16
    ) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
    }

    /// For logs: the UUID, the value handle in hex, and the properties.
    public var description: String { "characteristic \(uuid) value 0x\(hex(valueHandle)) \(properties)" }
}

/// A descriptor found on the peer.
public struct GATTDescriptor: Sendable, Hashable {
    /// The descriptor's type (for example 0x2902, the Client Characteristic Configuration).
    public let uuid: BluetoothUUID
    /// The descriptor's handle.
    public let handle: UInt16

    /// Creates a descriptor as discovery reports it.
    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// Characteristic properties (Core 5.4 Vol 3 Part G §3.3.1.1).
public struct GATTCharacteristicProperties: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The properties byte of the characteristic declaration.
    public let rawValue: UInt8
    /// Wraps a properties byte as read from a characteristic declaration.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01: the value may be broadcast (configured through the Server Characteristic Configuration
    /// descriptor).
    public static let broadcast = Self(rawValue: 0x01)
    /// 0x02: the value may be read.
    public static let read = Self(rawValue: 0x02)
    /// 0x04: the value may be written with Write Command (no acknowledgement).
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    /// 0x08: the value may be written with Write Request.
    public static let write = Self(rawValue: 0x08)
    /// 0x10: the server may notify the value (unacknowledged).
    public static let notify = Self(rawValue: 0x10)
    /// 0x20: the server may indicate the value (confirmed by the client).
    public static let indicate = Self(rawValue: 0x20)
    /// 0x40: the value may be written with Signed Write Command.
    public static let authenticatedSignedWrites = Self(rawValue: 0x40)
    /// 0x80: more properties are in the Characteristic Extended Properties descriptor.
    public static let extendedProperties = Self(rawValue: 0x80)

    /// The names of the set bits in brackets, comma-separated, for example `[read,notify]`.
    public var description: String {
        let names = [
            "broadcast", "read", "writeWithoutResponse", "write", "notify", "indicate", "signedWrite", "extended",
        ]
        return "[" + (0..<8).filter { rawValue & (1 << $0) != 0 }.map { names[$0] }.joined(separator: ",") + "]"
    }
}

/// Which kind of value updates a subscription asks for through the CCCD.
public enum GATTSubscriptionKind: Sendable, Hashable {
    /// Handle Value Notifications, which the client does not acknowledge (CCCD bit 0).
    case notifications
    /// Handle Value Indications, each confirmed by the client before the server sends the next (CCCD bit 1).
    case indications

    /// The CCCD bit (Core 5.4 Vol 3 Part G §3.3.3.3).
    var cccdBits: UInt16 { self == .notifications ? 0x0001 : 0x0002 }
}
