public import BLEWire

/// One advertising report, legacy or extended, with its data decoded through `AdvertisingData`. The
/// same for every way down to the controller: `HCIHost` and the kernel's raw HCI socket both give it.
public struct HCIAdvertisement: Sendable, Hashable {
    /// The advertiser's address and its type (public, random, or an identity address).
    public var address: BluetoothAddress
    /// Received signal strength in dBm; 127 when the controller could not measure it.
    public var rssi: Int8
    /// Legacy event type (0 ADV_IND … 4 SCAN_RSP), or the extended event type bits.
    public var eventType: UInt16
    /// True when the report came as an LE Extended Advertising Report (sub-event 0x0D).
    public var extended: Bool
    /// True when the advertising PDU was a legacy one (always for legacy reports; bit 4 of extended ones).
    public var legacyPDU: Bool
    /// True when the advertiser accepts connections (ADV_IND or ADV_DIRECT_IND; bit 0 of extended ones).
    public var connectable: Bool
    /// True when this is a scan response rather than an advertisement.
    public var isScanResponse: Bool
    /// The transmit power the extended report states (dBm), nil when absent (127) or legacy.
    public var txPower: Int8?
    /// The raw AD structures, their decoding, and where the decoding failed when they are malformed.
    public var rawData: [UInt8]
    /// The decoded AD structures; nil when they are malformed.
    public var data: AdvertisingData?
    /// Where decoding the AD structures failed; nil when `data` is set.
    public var dataError: DecodeError?

    /// One report of an LE Advertising Report event (legacy advertising).
    public init(_ report: HCILEAdvertisingReport) {
        address = BluetoothAddress(value: report.address.value, type: Self.addressType(report.addressType))
        rssi = report.rssi
        eventType = UInt16(report.eventType)
        extended = false
        legacyPDU = true
        connectable = report.eventType == 0x00 || report.eventType == 0x01
        isScanResponse = report.eventType == 0x04
        txPower = nil
        rawData = report.data
        (data, dataError) = Self.decode(report.data)
    }

    /// One report of an LE Extended Advertising Report event.
    public init(_ report: HCILEExtendedAdvertisingReport) {
        address = BluetoothAddress(value: report.address.value, type: Self.addressType(report.addressType))
        rssi = report.rssi
        eventType = report.eventType
        extended = true
        legacyPDU = report.eventType & 0x0010 != 0
        connectable = report.eventType & 0x0001 != 0
        isScanResponse = report.eventType & 0x0008 != 0
        txPower = report.txPower == 127 ? nil : report.txPower
        rawData = report.data
        (data, dataError) = Self.decode(report.data)
    }

    /// Every advertisement of an LE Advertising Report or LE Extended Advertising Report event (`event`:
    /// event code, parameter length, parameters). Other events give none; a malformed report is a
    /// located error.
    public static func reports(inEvent event: [UInt8]) throws(DecodeError) -> [HCIAdvertisement] {
        guard event.count >= 3, event[0] == HCILEAdvertisingReportEvent.eventCode else { return [] }
        let result: Result<[HCIAdvertisement], DecodeError> = event.withUnsafeBytes { bytes in
            var reader = ByteReader(bytes)
            do throws(DecodeError) {
                switch event[2] {
                case HCILEAdvertisingReportEvent.subeventCode:
                    return .success(try HCILEAdvertisingReportEvent(parsing: &reader).reports.map(Self.init))
                case HCILEExtendedAdvertisingReportEvent.subeventCode:
                    return .success(try HCILEExtendedAdvertisingReportEvent(parsing: &reader).reports.map(Self.init))
                default:
                    return .success([])
                }
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The advertised local name, if any.
    public var name: String? { data?.localName }

    /// The report's address type: 0 public, 1 random, 2/3 identity addresses; 0xFF (anonymous) as random.
    static func addressType(_ code: UInt8) -> BluetoothAddress.AddressType {
        BluetoothAddress.AddressType(rawValue: code) ?? .random
    }

    private static func decode(_ bytes: [UInt8]) -> (AdvertisingData?, DecodeError?) {
        do throws(DecodeError) {
            return (try AdvertisingData(bytes: bytes), nil)
        } catch {
            return (nil, error)
        }
    }
}
