public import BLEWire

/// One advertising report, legacy or extended, with its data decoded through `AdvertisingData`.
public struct HCIAdvertisement: Sendable, Hashable {
    public var address: BluetoothAddress
    public var rssi: Int8
    /// Legacy event type (0 ADV_IND … 4 SCAN_RSP), or the extended event type bits.
    public var eventType: UInt16
    public var extended: Bool
    public var connectable: Bool
    /// The raw AD structures, and their decoding (nil when malformed).
    public var rawData: [UInt8]
    public var data: AdvertisingData?

    init(_ report: HCILEAdvertisingReport) {
        address = BluetoothAddress(value: report.address.value, type: report.addressType & 1 == 1 ? .random : .public)
        rssi = report.rssi
        eventType = UInt16(report.eventType)
        extended = false
        connectable = report.eventType == 0x00 || report.eventType == 0x01
        rawData = report.data
        data = try? AdvertisingData(bytes: report.data)
    }

    init(_ report: HCILEExtendedAdvertisingReport) {
        address = BluetoothAddress(value: report.address.value, type: report.addressType & 1 == 1 ? .random : .public)
        rssi = report.rssi
        eventType = report.eventType
        extended = true
        connectable = report.eventType & 0x0001 != 0
        rawData = report.data
        data = try? AdvertisingData(bytes: report.data)
    }

    /// The advertised local name, if any.
    public var name: String? { data?.localName }
}
