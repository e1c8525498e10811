public import BLEWire

/// What a client may do with an attribute.
public struct GATTPermissions: OptionSet, Sendable, Hashable {
    /// The permission bits.
    public let rawValue: UInt8
    /// Wraps permission bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Clients may read the attribute (Read, Read Blob, Read By Type, Read Multiple, Find By Type Value).
    public static let read = Self(rawValue: 0x01)
    /// Clients may write the attribute (Write Request, Write Command, Prepare and Execute Write).
    public static let write = Self(rawValue: 0x02)
}

/// A write a client made to a characteristic value or descriptor, handed to its write handler on the
/// reader thread. `value` is borrowed: copy what you keep.
public struct GATTWrite {
    /// The value handle of the characteristic written.
    public let handle: UInt16
    /// The bytes written: the whole new value (for an executed long write, the value rebuilt from its
    /// prepared parts). Valid only during the handler call.
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
    /// The descriptor's type.
    public var uuid: BluetoothUUID
    /// The stored value: what reads return and writes replace.
    public var value: [UInt8]
    /// What clients may do with the descriptor; read only by default.
    public var permissions: GATTPermissions

    /// Describes a descriptor with an initial value.
    public init(uuid: BluetoothUUID, value: [UInt8], permissions: GATTPermissions = .read) {
        self.uuid = uuid
        self.value = value
        self.permissions = permissions
    }
}

/// A characteristic to put in the database: declaration, value, then a CCCD (added automatically
/// when `properties` include notify or indicate) and `descriptors`.
public struct GATTCharacteristicDefinition: Sendable {
    /// The characteristic's type, written into its declaration and given to its value attribute.
    public var uuid: BluetoothUUID
    /// The properties written into the declaration; notify or indicate also adds a CCCD.
    public var properties: GATTCharacteristicProperties
    /// What clients may do with the value attribute (the declaration itself is read only).
    public var permissions: GATTPermissions
    /// The initial stored value, which reads return unless `onRead` is set.
    public var value: [UInt8]
    /// The longest value a client may write (at most 512).
    public var maximumLength: Int
    /// Descriptors placed after the value (and after the CCCD, if any), in order.
    public var descriptors: [GATTDescriptorDefinition]
    /// Produces the value for every read instead of the stored one; called on the reader thread.
    public var onRead: GATTReadHandler?
    /// Sees every write to the value that passed the permission and length checks, on the reader thread,
    /// before it is stored; returning an error code rejects it. An Execute Write checks every prepared
    /// value before it hands any to a handler, but a handler that rejects one cannot undo the values
    /// handed out before it: those stay written, and the client gets the rejection.
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
    /// The service's type.
    public var uuid: BluetoothUUID
    /// Whether the service is declared primary (the default) or secondary, which clients reach only through
    /// an include.
    public var isPrimary: Bool
    /// Services (already added) that this one includes.
    public var includes: [GATTServiceHandles]
    /// The service's characteristics; their handles follow this order.
    public var characteristics: [GATTCharacteristicDefinition]

    /// Describes a service; `includes` name services already added to the database.
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
    /// Where one characteristic landed.
    public struct Characteristic: Sendable, Hashable {
        /// The characteristic's type.
        public let uuid: BluetoothUUID
        /// The handle of its declaration.
        public let declarationHandle: UInt16
        /// The handle of its value: the one to notify, indicate or set.
        public let valueHandle: UInt16
        /// The handle of its CCCD, or nil when it neither notifies nor indicates.
        public let cccdHandle: UInt16?
    }

    /// The service's type.
    public let uuid: BluetoothUUID
    /// The handle of the service declaration.
    public let handle: UInt16
    /// The service's last handle.
    public let endHandle: UInt16
    /// The service's characteristics, in the order they were defined.
    public let characteristics: [Characteristic]

    /// The value handle of the first characteristic with `uuid`.
    public func valueHandle(of uuid: BluetoothUUID) -> UInt16? {
        characteristics.first { $0.uuid == uuid }?.valueHandle
    }
}
