public import BLEWire

/// A service found on the peer: its declaration handle, the last handle of its group, and its UUID.
public struct GATTService: Sendable, Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public let handle: UInt16
    public let endHandle: UInt16
    public let isPrimary: Bool

    public init(uuid: BluetoothUUID, handle: UInt16, endHandle: UInt16, isPrimary: Bool = true) {
        self.uuid = uuid
        self.handle = handle
        self.endHandle = endHandle
        self.isPrimary = isPrimary
    }

    public var description: String { "service \(uuid) 0x\(hex(handle))–0x\(hex(endHandle))" }
}

/// An Include declaration found inside a service: where it is, and the service it includes.
public struct GATTIncludedService: Sendable, Hashable {
    public let declarationHandle: UInt16
    public let service: GATTService

    public init(declarationHandle: UInt16, service: GATTService) {
        self.declarationHandle = declarationHandle
        self.service = service
    }
}

/// A characteristic found on the peer. `endHandle` is the last handle of its descriptors.
public struct GATTCharacteristic: Sendable, Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public let declarationHandle: UInt16
    public let valueHandle: UInt16
    public let properties: GATTCharacteristicProperties
    public let endHandle: UInt16

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

    public var description: String { "characteristic \(uuid) value 0x\(hex(valueHandle)) \(properties)" }
}

/// A descriptor found on the peer.
public struct GATTDescriptor: Sendable, Hashable {
    public let uuid: BluetoothUUID
    public let handle: UInt16

    public init(uuid: BluetoothUUID, handle: UInt16) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// Characteristic properties (Core 5.4 Vol 3 Part G §3.3.1.1).
public struct GATTCharacteristicProperties: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = Self(rawValue: 0x01)
    public static let read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    public static let write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10)
    public static let indicate = Self(rawValue: 0x20)
    public static let authenticatedSignedWrites = Self(rawValue: 0x40)
    public static let extendedProperties = Self(rawValue: 0x80)

    public var description: String {
        let names = [
            "broadcast", "read", "writeWithoutResponse", "write", "notify", "indicate", "signedWrite", "extended",
        ]
        return "[" + (0..<8).filter { rawValue & (1 << $0) != 0 }.map { names[$0] }.joined(separator: ",") + "]"
    }
}

/// Which kind of value updates a subscription asks for through the CCCD.
public enum GATTSubscriptionKind: Sendable, Hashable {
    case notifications
    case indications

    /// The CCCD bit (Core 5.4 Vol 3 Part G §3.3.3.3).
    var cccdBits: UInt16 { self == .notifications ? 0x0001 : 0x0002 }
}
