import BLEHost
import BLEWire
import DeviceLinks
import Foundation
import Testing

/// What `hcipico scan` prints: the table of matches and a JSON line per device.
@Suite struct ScanListingTests {
    static func device(_ value: UInt64, name: String?, rssi: Int8, services: [BluetoothUUID]) -> DiscoveredDevice {
        DiscoveredDevice(
            HCIAdvertisement(
                HCILEAdvertisingReport(
                    eventType: 0,
                    addressType: 1,
                    address: BluetoothAddress(value: value, type: .random),
                    data: AdvertisingData(localName: name, serviceUUIDs: services).encodedBytes,
                    rssi: rssi
                )
            )
        )
    }

    @Test func tableIsAlignedWithKnownServiceNames() {
        let table = ScanListing.table([
            Self.device(0xF011_2233_4455, name: "PicoSim", rssi: -50, services: [.lairdVSPService]),
            Self.device(0xC000_0000_0001, name: "HM", rssi: -7, services: [.hm10Service, BluetoothUUID(0x180D)]),
            Self.device(0xC000_0000_0002, name: nil, rssi: -100, services: [.nordicUARTService]),
        ])
        #expect(
            table == """
                ADDRESS            TYPE    NAME     RSSI  SERVICES
                F0:11:22:33:44:55  random  PicoSim   -50  Laird VSP
                C0:00:00:00:00:01  random  HM         -7  HM-10, Heart Rate
                C0:00:00:00:00:02  random  -        -100  Nordic UART

                """
        )
    }

    /// With --json a device is printed when it first matches, and once more when its name arrives in
    /// a scan response; other updates print nothing.
    @Test func jsonPrintsADeviceAgainWhenItsScanResponseBringsTheName() throws {
        func report(_ eventType: UInt8, name: String?, services: [BluetoothUUID], rssi: Int8) -> HCIAdvertisement {
            HCIAdvertisement(
                HCILEAdvertisingReport(
                    eventType: eventType,
                    addressType: 1,
                    address: BluetoothAddress(value: 0xF011_2233_4455, type: .random),
                    data: AdvertisingData(localName: name, serviceUUIDs: services).encodedBytes,
                    rssi: rssi
                )
            )
        }
        func name(_ line: String?) throws -> Any? {
            let line = try #require(line)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return object["name"]
        }
        let listing = ScanListing(filter: ScanFilter(services: [.lairdVSPService]))
        let first = listing.add(report(0x00, name: nil, services: [.lairdVSPService], rssi: -60))
        #expect(try name(first) is NSNull)
        #expect(listing.add(report(0x00, name: nil, services: [.lairdVSPService], rssi: -55)) == nil)
        let named = listing.add(report(0x04, name: "PicoSim", services: [], rssi: -55))
        #expect(try name(named) as? String == "PicoSim")
        #expect(listing.add(report(0x04, name: "PicoSim", services: [], rssi: -40)) == nil)
        #expect(listing.matched.count == 1)

        // A device named from its first report is printed once.
        let once = ScanListing(filter: ScanFilter(services: [.lairdVSPService]))
        #expect(
            try name(once.add(report(0x00, name: "Pico", services: [.lairdVSPService], rssi: -60))) as? String
                == "Pico"
        )
        #expect(once.add(report(0x04, name: "Pico", services: [], rssi: -50)) == nil)
    }

    @Test func jsonLineIsOneParsableObjectWithEscapedStrings() throws {
        var device = Self.device(
            0xF011_2233_4455,
            name: "Pico \"1\"\n\u{1}",
            rssi: -50,
            services: [.lairdVSPService, BluetoothUUID(0x180F), BluetoothUUID(0xFE2C), BluetoothUUID(0x1234)]
        )
        device.manufacturerData = [.init(companyID: 0x0059, data: [0x01, 0xAB]), .init(companyID: 0xFFFF, data: [])]
        device.txPower = -4
        device.appearance = 0x0341
        let line = ScanListing.jsonLine(device)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["address"] as? String == "F0:11:22:33:44:55")
        #expect(object["addressType"] as? String == "random")
        #expect(object["name"] as? String == "Pico \"1\"\n\u{1}")
        #expect(object["rssi"] as? Int == -50)
        #expect(object["services"] as? [String] == ["180F", "FE2C", "1234", "569A1101-B87F-490C-92CB-11BA5EA5167C"])
        // The names gatt services prints: the SIG's for assigned UUIDs (a member UUID too), null when none.
        let names = try #require(object["serviceNames"] as? [Any])
        #expect(names.count == 4 && names[2] is NSNull)
        #expect(names.compactMap { $0 as? String } == ["Battery", "Google LLC", "Laird VSP"])
        #expect(object["appearance"] as? Int == 0x0341)
        #expect(object["appearanceName"] as? String == "Heart Rate Sensor: Heart Rate Belt")
        #expect(object["txPower"] as? Int == -4)
        #expect(object["connectable"] as? Bool == true)
        #expect(object["extended"] as? Bool == false)
        let manufacturer = try #require(object["manufacturerData"] as? [[String: Any]])
        #expect(manufacturer.first?["companyID"] as? Int == 0x59 && manufacturer.first?["data"] as? String == "01ab")
        #expect(manufacturer.first?["company"] as? String == "Nordic Semiconductor ASA")
        #expect(manufacturer.last?["company"] is NSNull)
        #expect(line.hasPrefix("{\"address\":"), "keys in a fixed order, address first")
    }
}
