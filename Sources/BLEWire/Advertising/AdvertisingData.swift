/// Advertising or scan response data decoded into the fields a central filters on (CSS v11 Part A §1):
/// flags, local name, service UUIDs, TX power, appearance, service data and manufacturer data; other
/// AD types are kept in `other`. Allocates: for the hot path use `AdvertisingDataReader`.
public struct AdvertisingData: Sendable, Hashable {
    public struct ManufacturerData: Sendable, Hashable {
        /// The company identifier (Assigned Numbers), little-endian on the wire.
        public var companyID: UInt16
        public var data: [UInt8]

        public init(companyID: UInt16, data: [UInt8]) {
            self.companyID = companyID
            self.data = data
        }
    }

    public struct ServiceData: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var data: [UInt8]

        public init(uuid: BluetoothUUID, data: [UInt8]) {
            self.uuid = uuid
            self.data = data
        }
    }

    public var flags: UInt8?
    public var localName: String?
    /// True when the name came as Complete Local Name, false for Shortened Local Name.
    public var isLocalNameComplete: Bool
    /// Service UUIDs of every width, in the order they appeared.
    public var serviceUUIDs: [BluetoothUUID]
    public var txPowerLevel: Int8?
    public var appearance: UInt16?
    public var serviceData: [ServiceData]
    public var manufacturerData: [ManufacturerData]
    /// Every other AD structure, type and data.
    public var other: [Other]

    public struct Other: Sendable, Hashable {
        public var type: AdvertisingDataType
        public var data: [UInt8]

        public init(type: AdvertisingDataType, data: [UInt8]) {
            self.type = type
            self.data = data
        }
    }

    public init(
        flags: UInt8? = nil,
        localName: String? = nil,
        isLocalNameComplete: Bool = true,
        serviceUUIDs: [BluetoothUUID] = [],
        txPowerLevel: Int8? = nil,
        appearance: UInt16? = nil,
        serviceData: [ServiceData] = [],
        manufacturerData: [ManufacturerData] = [],
        other: [Other] = []
    ) {
        self.flags = flags
        self.localName = localName
        self.isLocalNameComplete = isLocalNameComplete
        self.serviceUUIDs = serviceUUIDs
        self.txPowerLevel = txPowerLevel
        self.appearance = appearance
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
        self.other = other
    }

    /// True when the data lists `uuid` among its service UUIDs.
    public func advertises(_ uuid: BluetoothUUID) -> Bool { serviceUUIDs.contains(uuid) }
}
