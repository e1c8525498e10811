public import BLEWire

/// What a client may do with an attribute.
public struct GATTPermissions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = Self(rawValue: 0x01)
    public static let write = Self(rawValue: 0x02)
}

/// A write a client made to a characteristic value or descriptor, handed to its write handler on the
/// reader thread. `value` is borrowed: copy what you keep.
public struct GATTWrite {
    public let handle: UInt16
    public let value: UnsafeRawBufferPointer
    /// True for Write Command (no response will be sent, a rejection is silently dropped).
    public let withoutResponse: Bool
    /// The connection's server, to answer with notifications.
    public let server: GATTServer
}

/// Accepts a write (return nil; the value is stored when the definition says so) or rejects it with
/// an ATT error code (an application error 0x80–0x9F, Value Not Allowed …).
public typealias GATTWriteHandler = @Sendable (GATTWrite) -> ATTErrorCode?

/// Produces a value when a client reads (Read, Read Blob, Read By Type, Read Multiple).
public typealias GATTReadHandler = @Sendable () -> [UInt8]

/// A descriptor to put in the database after its characteristic's value.
public struct GATTDescriptorDefinition: Sendable {
    public var uuid: BluetoothUUID
    public var value: [UInt8]
    public var permissions: GATTPermissions

    public init(uuid: BluetoothUUID, value: [UInt8], permissions: GATTPermissions = .read) {
        self.uuid = uuid
        self.value = value
        self.permissions = permissions
    }
}

/// A characteristic to put in the database: declaration, value, then a CCCD (added automatically
/// when `properties` include notify or indicate) and `descriptors`.
public struct GATTCharacteristicDefinition: Sendable {
    public var uuid: BluetoothUUID
    public var properties: GATTCharacteristicProperties
    public var permissions: GATTPermissions
    public var value: [UInt8]
    /// The longest value a client may write (at most 512).
    public var maximumLength: Int
    public var descriptors: [GATTDescriptorDefinition]
    public var onRead: GATTReadHandler?
    public var onWrite: GATTWriteHandler?
    /// Whether an accepted write replaces the stored value (turn off when `onWrite` consumes writes, as
    /// a serial-port RX characteristic does: then no write allocates).
    public var storesWrites: Bool

    /// `permissions` default to read when the properties say read, and write when they say write or
    /// write without response.
    public init(
        uuid: BluetoothUUID,
        properties: GATTCharacteristicProperties,
        permissions: GATTPermissions? = nil,
        value: [UInt8] = [],
        maximumLength: Int = 512,
        descriptors: [GATTDescriptorDefinition] = [],
        storesWrites: Bool = true,
        onRead: GATTReadHandler? = nil,
        onWrite: GATTWriteHandler? = nil
    ) {
        self.uuid = uuid
        self.properties = properties
        var derived: GATTPermissions = []
        if properties.contains(.read) { derived.insert(.read) }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse]) { derived.insert(.write) }
        self.permissions = permissions ?? derived
        self.value = value
        self.maximumLength = min(512, maximumLength)
        self.descriptors = descriptors
        self.storesWrites = storesWrites
        self.onRead = onRead
        self.onWrite = onWrite
    }
}

/// A service to put in the database.
public struct GATTServiceDefinition: Sendable {
    public var uuid: BluetoothUUID
    public var isPrimary: Bool
    /// Services (already added) that this one includes.
    public var includes: [GATTServiceHandles]
    public var characteristics: [GATTCharacteristicDefinition]

    public init(
        uuid: BluetoothUUID,
        isPrimary: Bool = true,
        includes: [GATTServiceHandles] = [],
        characteristics: [GATTCharacteristicDefinition]
    ) {
        self.uuid = uuid
        self.isPrimary = isPrimary
        self.includes = includes
        self.characteristics = characteristics
    }
}

/// Where a service landed in the database.
public struct GATTServiceHandles: Sendable, Hashable {
    public struct Characteristic: Sendable, Hashable {
        public let uuid: BluetoothUUID
        public let declarationHandle: UInt16
        public let valueHandle: UInt16
        public let cccdHandle: UInt16?
    }

    public let uuid: BluetoothUUID
    public let handle: UInt16
    public let endHandle: UInt16
    public let characteristics: [Characteristic]

    /// The value handle of the first characteristic with `uuid`.
    public func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        characteristics.first { $0.uuid == uuid }?.valueHandle
    }
}
