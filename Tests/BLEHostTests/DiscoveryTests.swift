import BLEHost
import BLEWire
import Testing

/// The transport-neutral scan model: reports merged per address, filters, malformed data located.
@Suite struct DiscoveryTests {
    static let pico = BluetoothAddress(value: 0xF011_2233_4455, type: .random)

    static func report(
        _ data: AdvertisingData,
        eventType: UInt8 = 0x00,
        address: BluetoothAddress = pico,
        rssi: Int8 = -50
    ) -> HCIAdvertisement {
        HCIAdvertisement(
            HCILEAdvertisingReport(
                eventType: eventType,
                addressType: address.type.rawValue,
                address: address,
                data: data.encodedBytes,
                rssi: rssi
            )
        )
    }

    @Test func scanResponseCompletesTheDeviceAndUpdatesRSSI() {
        var device = DiscoveredDevice(
            Self.report(AdvertisingData(localName: "Pi", isLocalNameComplete: false, serviceUUIDs: [.lairdVSPService]))
        )
        #expect(device.name == "Pi" && !device.nameIsComplete && device.rssi == -50 && device.connectable)
        let changed = device.merge(
            Self.report(
                AdvertisingData(
                    localName: "PicoSim",
                    manufacturerData: [.init(companyID: 0x0059, data: [1])],
                    other: []
                ),
                eventType: 0x04,
                rssi: -44
            )
        )
        #expect(changed)
        #expect(device.name == "PicoSim" && device.nameIsComplete && device.rssi == -44)
        #expect(device.manufacturerData == [.init(companyID: 0x0059, data: [1])])
        // A later shortened name does not replace the complete one; an unmeasured RSSI (127) is ignored.
        let again = device.merge(
            Self.report(AdvertisingData(localName: "Pi", isLocalNameComplete: false), rssi: 127)
        )
        #expect(!again)
        #expect(device.name == "PicoSim" && device.rssi == -44 && device.reports == 3)
        // Manufacturer data is replaced per company, kept per other company.
        device.merge(Self.report(AdvertisingData(manufacturerData: [.init(companyID: 0x0059, data: [2])])))
        #expect(device.manufacturerData == [.init(companyID: 0x0059, data: [2])])
    }

    @Test func nonConnectableAdvertisementIsSaid() {
        let device = DiscoveredDevice(Self.report(AdvertisingData(localName: "Beacon"), eventType: 0x03))
        #expect(!device.connectable)
    }

    @Test func filterConditionsCombine() {
        let device = DiscoveredDevice(Self.report(AdvertisingData(localName: "PicoSim2", serviceUUIDs: [.hm10Service])))
        #expect(ScanFilter.all.matches(device))
        #expect(!ScanFilter.lairdVSP.matches(device))
        #expect(ScanFilter(services: [.lairdVSPService, .hm10Service]).matches(device))
        #expect(ScanFilter(namePrefix: "PicoSim").matches(device))
        #expect(!ScanFilter(namePrefix: "picosim").matches(device), "case-sensitive")
        #expect(ScanFilter(address: BluetoothAddress(value: 0xF011_2233_4455, type: .public)).matches(device))
        #expect(!ScanFilter(services: [.hm10Service], namePrefix: "Other").matches(device))
    }

    @Test func tableReportsEachDeviceOnceWhenItFirstMatches() {
        var table = DiscoveryTable(filter: .lairdVSP)
        let other = BluetoothAddress(value: 0xF011_2233_4456, type: .random)
        #expect(table.add(Self.report(AdvertisingData(localName: "x")))?.change == .unmatched)
        #expect(table.add(Self.report(AdvertisingData(serviceUUIDs: [.lairdVSPService])))?.change == .matched)
        #expect(table.add(Self.report(AdvertisingData(serviceUUIDs: [.lairdVSPService])))?.change == .unchanged)
        #expect(
            table.add(Self.report(AdvertisingData(serviceUUIDs: [.lairdVSPService]), rssi: -30))?.change == .updated
        )
        #expect(
            table.add(Self.report(AdvertisingData(serviceUUIDs: [.lairdVSPService]), address: other))?.change
                == .matched
        )
        #expect(table.matched.map(\.address) == [Self.pico, other])
        #expect(table.matched.first?.name == "x")
    }

    @Test func tableStopsTrackingAtItsCapacity() {
        var table = DiscoveryTable(filter: .all, capacity: 2)
        for value in UInt64(1)...3 {
            table.add(Self.report(AdvertisingData(), address: BluetoothAddress(value: value, type: .random)))
        }
        #expect(table.count == 2 && table.untracked == 1 && table.matched.count == 2)
    }

    @Test func malformedAdvertisingDataIsLocatedAndTheReportKept() {
        // Flags, then a name structure claiming 9 bytes with 3 present.
        let report = HCIAdvertisement(
            HCILEAdvertisingReport(
                eventType: 0,
                addressType: 1,
                address: Self.pico,
                data: [2, 0x01, 0x06, 10, 0x09, 0x50, 0x69, 0x63],
                rssi: -60
            )
        )
        #expect(report.data == nil)
        #expect(report.dataError == DecodeError(offset: 3, reason: .lengthMismatch(declared: 10, actual: 4)))
        let device = DiscoveredDevice(report)
        #expect(device.rssi == -60 && device.malformedData == report.dataError)
    }

    @Test func reportsInOtherEventsAreNone() throws {
        #expect(try HCIAdvertisement.reports(inEvent: [0x3E, 0x03, 0x0C, 0x00, 0x40]).isEmpty)
        #expect(try HCIAdvertisement.reports(inEvent: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]).isEmpty)
        #expect(throws: DecodeError.self) { try HCIAdvertisement.reports(inEvent: [0x3E, 0x02, 0x02, 0x01]) }
    }
}
