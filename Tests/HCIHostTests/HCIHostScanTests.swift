import BLEHost
import BLETesting
import BLEWire
import Coordination
import Testing

/// `HCIHost.startScanning(_:)` with explicit parameters, its reports merged into the same
/// `DiscoveredDevice` model the kernel path fills.
@Suite struct HCIHostScanTests {
    @Test func parametersGoIntoTheLegacyCommandsAndReportsMergeByAddress() async throws {
        let harness = try await HostHarness()
        let parameters = ScanParameters(active: false, interval: 0x0010, window: 0x0008, filterDuplicates: true)
        let stream = try await harness.host.startScanning(parameters)
        #expect(harness.controller.commands(0x200B) == [[0x00, 0x10, 0x00, 0x08, 0x00, 0x00, 0x00]])
        #expect(harness.controller.commands(0x200C) == [[0x01, 0x01]])
        let advertisement = HCILEAdvertisingReport(
            eventType: 0x00,
            addressType: 1,
            address: HostHarness.peer,
            data: AdvertisingData(flags: 0x06, serviceUUIDs: [.lairdVSPService]).encodedBytes,
            rssi: -70
        )
        let response = HCILEAdvertisingReport(
            eventType: 0x04,
            addressType: 1,
            address: HostHarness.peer,
            data: AdvertisingData(localName: "PicoSim", txPowerLevel: 3).encodedBytes,
            rssi: -65
        )
        harness.controller.event(HCILEAdvertisingReportEvent(reports: [advertisement]))
        harness.controller.event(HCILEAdvertisingReportEvent(reports: [response]))
        var table = DiscoveryTable(filter: ScanFilter(services: [.lairdVSPService], namePrefix: "Pico"))
        var changes: [DiscoveryTable.Change] = []
        for await report in stream {
            if let (_, change) = table.add(report) { changes.append(change) }
            if changes.count == 2 { break }
        }
        try await harness.host.stopScanning()
        #expect(changes == [.unmatched, .matched], "the name arrives in the scan response")
        let device = try #require(table.matched.first)
        #expect(device.name == "PicoSim" && device.rssi == -65 && device.txPower == 3 && device.connectable)
        #expect(harness.controller.commands(0x200C).last == [0x00, 0x00])
    }

    static func report(name: String) -> HCILEAdvertisingReportEvent {
        HCILEAdvertisingReportEvent(reports: [
            HCILEAdvertisingReport(
                eventType: 0,
                addressType: 1,
                address: HostHarness.peer,
                data: AdvertisingData(flags: 0x06, localName: name).encodedBytes,
                rssi: -50
            )
        ])
    }

    /// The scan's timeout is a wake of the host's clock: nothing found by then is `.scanTimeout`, and
    /// scanning is disabled.
    @Test func aScanThatFindsNothingEndsWhenTheHostsClockReachesItsTimeout() async throws {
        let clock = ManualClock()
        let harness = try await HostHarness(clock: clock)
        let scanning = Task { try await harness.host.scan(timeout: .seconds(5)) { $0.name == "PicoSim" } }
        #expect(await eventually { clock.pendingDeadlines.contains(.seconds(5)) }, "the scan's timeout is asked for")
        harness.controller.event(Self.report(name: "Other"))
        clock.advance(by: .seconds(4))
        #expect(harness.host.isScanning(), "not before its time")
        clock.advance(by: .seconds(1))
        await #expect(throws: HCIHostError.scanTimeout) { try await scanning.value }
        #expect(harness.controller.commands(0x200C).last == [0x00, 0x00], "scanning disabled")
    }

    /// A scan that found its device leaves its timeout's wake behind; when it comes, a later scan
    /// goes on.
    @Test func anEarlierScansTimeoutNeverStopsALaterScan() async throws {
        let clock = ManualClock()
        let harness = try await HostHarness(clock: clock)
        let first = Task { try await harness.host.scan(timeout: .seconds(5)) { $0.name == "PicoSim" } }
        #expect(await eventually { clock.pendingDeadlines.contains(.seconds(5)) }, "the scan's timeout is asked for")
        harness.controller.event(Self.report(name: "PicoSim"))
        #expect(try await first.value.name == "PicoSim")
        let stream = try await harness.host.startScanning()
        clock.advance(by: .seconds(5))
        #expect(harness.host.isScanning(), "the first scan's wake came and went")
        harness.controller.event(Self.report(name: "Later"))
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next()?.name == "Later")
        try await harness.host.stopScanning()
    }
}
