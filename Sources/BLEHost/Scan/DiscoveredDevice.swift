public import BLEWire

/// One advertiser as a scan has seen it so far, merged from its advertisements and scan responses:
/// the transport-neutral result of a scan (the kernel's raw HCI socket and `HCIHost` fill it alike).
public struct DiscoveredDevice: Sendable, Hashable {
    /// The address, with its type (public, random, or an identity address).
    public var address: BluetoothAddress
    /// The local name; a complete name replaces a shortened one, never the other way round.
    public var name: String?
    /// Whether `name` came from a Complete Local Name rather than a Shortened Local Name.
    public var nameIsComplete: Bool
    /// The latest signal strength in dBm (nil until the controller measured one).
    public var rssi: Int8?
    /// Every service UUID advertised so far, in the order first seen.
    public var services: [BluetoothUUID]
    /// Manufacturer data, the latest per company identifier.
    public var manufacturerData: [AdvertisingData.ManufacturerData]
    /// Service data, the latest per UUID.
    public var serviceData: [AdvertisingData.ServiceData]
    /// The advertised TX Power Level, else the power an extended report states (dBm).
    public var txPower: Int8?
    /// The advertised GAP Appearance (`AssignedNumbers.appearance` names it).
    public var appearance: UInt16?
    /// The AD flags (LE General Discoverable, BR/EDR Not Supported …) of the latest advertisement.
    public var flags: UInt8?
    /// Whether the latest advertisement (not scan response) was connectable.
    public var connectable: Bool
    /// Whether the latest report was an extended one, and whether its PDU was a legacy one.
    public var extended: Bool
    /// Whether the latest report's advertising PDU was a legacy one (always for legacy reports).
    public var legacyPDU: Bool
    /// Reports merged so far, and the last malformed advertising data among them (located).
    public var reports: Int
    /// Where the latest malformed advertising data failed to decode; nil while none was. A later
    /// well-formed report does not clear it.
    public var malformedData: DecodeError?

    /// A device known from its first report.
    public init(_ advertisement: HCIAdvertisement) {
        address = advertisement.address
        name = nil
        nameIsComplete = false
        rssi = nil
        services = []
        manufacturerData = []
        serviceData = []
        txPower = nil
        appearance = nil
        flags = nil
        connectable = advertisement.connectable
        extended = advertisement.extended
        legacyPDU = advertisement.legacyPDU
        reports = 0
        merge(advertisement)
    }

    /// Adds what `advertisement` (from this device) says. Returns true when a shown field changed
    /// (name, RSSI, services, manufacturer or service data, TX power, appearance, connectable).
    @discardableResult
    public mutating func merge(_ advertisement: HCIAdvertisement) -> Bool {
        let before = self
        reports += 1
        if advertisement.rssi != 127 { rssi = advertisement.rssi }
        if !advertisement.isScanResponse { connectable = advertisement.connectable }
        extended = advertisement.extended
        legacyPDU = advertisement.legacyPDU
        if let stated = advertisement.txPower { txPower = stated }
        if let error = advertisement.dataError { malformedData = error }
        if let data = advertisement.data { merge(data) }
        return name != before.name || rssi != before.rssi || services != before.services
            || manufacturerData != before.manufacturerData || serviceData != before.serviceData
            || txPower != before.txPower || appearance != before.appearance || connectable != before.connectable
    }

    private mutating func merge(_ data: AdvertisingData) {
        if let advertised = data.localName, data.isLocalNameComplete || !nameIsComplete {
            name = advertised
            nameIsComplete = data.isLocalNameComplete
        }
        for uuid in data.serviceUUIDs where !services.contains(uuid) { services.append(uuid) }
        for entry in data.manufacturerData {
            if let index = manufacturerData.firstIndex(where: { $0.companyID == entry.companyID }) {
                manufacturerData[index] = entry
            } else {
                manufacturerData.append(entry)
            }
        }
        for entry in data.serviceData {
            if let index = serviceData.firstIndex(where: { $0.uuid == entry.uuid }) {
                serviceData[index] = entry
            } else {
                serviceData.append(entry)
            }
            if !services.contains(entry.uuid) { services.append(entry.uuid) }
        }
        if let level = data.txPowerLevel { txPower = level }
        if let advertised = data.appearance { appearance = advertised }
        if let advertisedFlags = data.flags { flags = advertisedFlags }
    }
}
