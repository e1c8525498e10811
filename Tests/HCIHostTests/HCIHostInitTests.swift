import BLEHost
import BLETesting
import BLEWire
import Coordination
import Testing

@Suite("HCIHost initialisation")
struct HCIHostInitTests {
    @Test("the init sequence, with LE Read Buffer Size v2 when the bitmap has it")
    func sequenceV2() async throws {
        let harness = try await HostHarness(.init(leLength: 251, leCount: 6))
        let opcodes = harness.controller.commandOpcodes
        #expect(Array(opcodes.prefix(4)) == [0x0C03, 0x1001, 0x1002, 0x1003])
        for opcode: UInt16 in [0x1009, 0x0C01, 0x2001, 0x2060] { #expect(opcodes.contains(opcode)) }
        #expect(!opcodes.contains(0x2002))
        #expect(harness.info.bufferSource == .leReadBufferSizeV2)
        #expect(harness.info.aclDataLength == 251 && harness.info.aclPacketCount == 6)
        #expect(harness.info.ownAddress == BluetoothAddress(value: 0x00_00_5E_00_53_01, type: .public))
        #expect(!harness.info.extendedScanning && !harness.info.extendedConnect)
        let leMask = try #require(harness.controller.commands(0x2001).first)
        #expect(leMask[0] & 0x3F == 0x2F)  // connection complete, adv report, update, features, remote param request
    }

    @Test("what the controller reported, as `hcipico adapters --transport` prints it")
    func summary() async throws {
        let harness = try await HostHarness(.init(leLength: 251, leCount: 6))
        let lines = harness.info.summary(transport: "tcp:127.0.0.1:9000").split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.first?.hasPrefix("tcp:127.0.0.1:9000  ") == true)
        #expect(lines.contains("  ACL buffers 6 × 251 bytes (LE Read Buffer Size v2)"))
        #expect(lines.contains("  scanning legacy, connecting legacy"))
        #expect(HCIControllerInfo.coreVersion(13) == "5.4 (13)" && HCIControllerInfo.coreVersion(99) == "99")
    }

    @Test("falls back to LE Read Buffer Size v1 when v2 is not in the supported-commands bitmap")
    func fallbackV1() async throws {
        let harness = try await HostHarness(.init(commands: FakeHCIController.baseCommands, leLength: 27, leCount: 3))
        let opcodes = harness.controller.commandOpcodes
        #expect(opcodes.contains(0x2002) && !opcodes.contains(0x2060))
        #expect(harness.info.bufferSource == .leReadBufferSizeV1)
        #expect(harness.info.aclDataLength == 27 && harness.info.aclPacketCount == 3)
    }

    @Test("uses the shared ACL buffer when the LE buffer is reported as 0")
    func sharedBuffer() async throws {
        let harness = try await HostHarness(.init(commands: FakeHCIController.baseCommands, leLength: 0, leCount: 0))
        #expect(harness.controller.commandOpcodes.contains(0x1005))
        #expect(harness.info.bufferSource == .sharedReadBufferSize)
        #expect(harness.info.aclDataLength == 310 && harness.info.aclPacketCount == 10)
    }

    @Test("a static random own address is set when the controller has no public address")
    func randomAddress() async throws {
        let harness = try await HostHarness(.init(address: BluetoothAddress(value: 0)))
        let set = try #require(harness.controller.commands(0x2005).first)
        #expect(set.count == 6 && set[5] & 0xC0 == 0xC0)
        #expect(harness.info.ownAddress.type == .random)
    }

    @Test("a command the controller never answers fails with a typed timeout when its time has passed")
    func commandTimeout() async throws {
        let controller = FakeHCIController(.init(silent: [0x1002]))
        let clock = ManualClock()
        var configuration = HCIHostConfiguration()
        configuration.commandTimeout = .milliseconds(100)
        let host = HCIHost(transport: controller, configuration: configuration, clock: clock)
        let start = Task { try await host.start() }
        try #require(await eventually { controller.commandOpcodes.contains(0x1002) && clock.pendingWakes > 0 })
        clock.advance(by: .milliseconds(99))
        #expect(clock.pendingWakes > 0, "not before its time")
        clock.advance(by: .milliseconds(1))
        await #expect(throws: HCIHostError.commandTimeout(opcode: 0x1002)) { try await start.value }
    }

    @Test("a connection attempt that does not complete is cancelled with LE Create Connection Cancel")
    func connectTimeout() async throws {
        let harness = try await HostHarness(.init(completesConnections: false), timeout: .milliseconds(300))
        await #expect(throws: HCIHostError.connectTimeout(HostHarness.peer)) {
            _ = try await harness.host.connect(to: HostHarness.peer, timeout: .milliseconds(100))
        }
        #expect(harness.controller.commandOpcodes.contains(0x200E))
    }

    @Test("legacy scanning decodes advertising reports through AdvertisingData")
    func scanLegacy() async throws {
        // A clock that never moves: the scan ends by finding the device, never by its timeout.
        let harness = try await HostHarness(clock: ManualClock())
        let data = AdvertisingData(flags: 0x06, localName: "PicoSim").encodedBytes
        let report = HCILEAdvertisingReport(
            eventType: 0,
            addressType: 1,
            address: HostHarness.peer,
            data: data,
            rssi: -40
        )
        let scanning = Task { try await harness.host.scan(timeout: .seconds(10)) { $0.name == "PicoSim" } }
        #expect(await eventually { harness.controller.commandOpcodes.contains(0x200C) })
        harness.controller.event(HCILEAdvertisingReportEvent(reports: [report]))
        let found = try await scanning.value
        #expect(found.address == HostHarness.peer && found.rssi == -40 && found.connectable)
        #expect(harness.controller.commands(0x200C).last == [0, 0])
    }

    @Test("extended scanning and Extended Create Connection when the bitmap lists them")
    func extendedPath() async throws {
        let commands =
            FakeHCIController.baseCommands + [
                HCILESetExtendedScanParameters.self, HCILESetExtendedScanEnable.self,
                HCILEExtendedCreateConnection.self,
            ]
        // A clock that never moves: the scan and the connection end by their events, never by a timeout.
        let harness = try await HostHarness(.init(commands: commands), clock: ManualClock())
        #expect(harness.info.extendedScanning && harness.info.extendedConnect)
        let report = HCILEExtendedAdvertisingReport(
            eventType: 0x0013,
            addressType: 1,
            address: HostHarness.peer,
            primaryPHY: 1,
            secondaryPHY: 0,
            advertisingSID: 0xFF,
            txPower: 127,
            rssi: -50,
            periodicAdvertisingInterval: 0,
            directAddressType: 0,
            directAddress: BluetoothAddress(value: 0),
            data: AdvertisingData(localName: "PicoSim").encodedBytes
        )
        let scanning = Task { try await harness.host.scan(timeout: .seconds(10)) { $0.name == "PicoSim" } }
        #expect(await eventually { harness.controller.commandOpcodes.contains(0x2042) })
        harness.controller.event(HCILEExtendedAdvertisingReportEvent(reports: [report]))
        let found = try await scanning.value
        #expect(found.extended && found.connectable && found.rssi == -50)
        let link = try await harness.host.connect(to: found.address, timeout: .seconds(2))
        #expect(link.peer == HostHarness.peer)
        let opcodes = harness.controller.commandOpcodes
        #expect(
            opcodes.contains(0x2041) && opcodes.contains(0x2043) && !opcodes.contains(0x200D)
                && !opcodes.contains(0x200B)
        )
    }
}
