import DeviceLinks
import PicoLink
import Testing

/// `DeviceManager` over links `LinkOpener` opens (`DeviceLink.connection`), as the README shows an
/// embedder doing it: the device is kept open, a run is recorded into a sink, and removing the device
/// closes its link (the simulator's serial number shows each connection was one `LinkOpener` made).
@Suite struct DeviceManagerLinkTests {
    final class CountingSink: SampleSink {
        private(set) var packages = 0
        private(set) var ends: [RunEnd] = []
        func begin(_ run: RunInfo) throws(SinkError) {}
        func write(_ package: PicoPackage) throws(SinkError) { packages += 1 }
        func finish(_ end: RunEnd) throws(SinkError) { ends.append(end) }
        func sync() throws(SinkError) {}
    }

    @Test func aManagedDeviceOpenedByLinkOpenerRecordsARunAndClosesItsLink() async throws {
        let opener = LinkOpener(logger: RecordedLog().logger())
        let options = LinkOpener.Options(simulator: SimulatorSettings(fast: true, serialNumber: "SIM-KEPT-1"))
        let manager = DeviceManager()
        let device = try manager.add("kept") { try await opener.open(.simulator(.pico), options: options).connection }
        let session = try await device.connect()
        #expect(try await session.serialNumber() == "SIM-KEPT-1")
        let sink = CountingSink()
        let script = try PicoScript(
            """
            e
            var c
            var p
            set_pgstat_mode 2
            cell_on
            meas_loop_lsv p c -500m 500m 50m 100m
              pck_start
              pck_add p
              pck_add c
              pck_end
            endloop
            cell_off

            """
        )
        let end = try await device.record(script, title: "lsv", into: [sink])
        #expect(end.complete && sink.packages == 21 && sink.ends == [end], "\(end)")
        await manager.removeAll()
        #expect(!session.isConnected, "removing the device closed its link")
        var statuses: [DeviceStatus] = []
        for await status in device.statuses { statuses.append(status) }
        #expect(statuses.last == .disconnected(reason: nil))
    }
}
