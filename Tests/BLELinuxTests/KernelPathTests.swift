import BLEHost
import BLETesting
import BLEWire
import Foundation
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// The kernel path against a real Linux kernel: run in the qemu guest of `Tests/Peers/kernel-tier.sh`
/// (`BLE_KERNEL_TESTS=1`, `BLE_PEER` = a Bumble peripheral reached through hci0). Skipped elsewhere.
@Suite(.serialized, .enabled(if: getenv("BLE_KERNEL_TESTS") != nil, "needs the kernel tier's guest"))
struct KernelPathTests {
    static var peer: BluetoothAddress? {
        guard let text = getenv("BLE_PEER").map({ String(cString: $0) }) else { return nil }
        return try? BluetoothAddress(parsing: text, type: .random)
    }

    @Test func adapterIsListedAndUp() throws {
        let adapters = try HCIAdapters.list()
        #expect(adapters.contains { $0.isUp }, "\(adapters)")
        let chosen = try HCIAdapters.resolve(nil)
        #expect(chosen.isUp)
        #expect(chosen.address.value != 0)
    }

    /// Every peripheral of the peer (BLE_PEERS), by address value.
    static var peers: Set<UInt64> {
        let text = getenv("BLE_PEERS").map { String(cString: $0) } ?? ""
        return Set(text.split(separator: ",").compactMap { BluetoothAddress($0)?.value })
    }

    @Test func scanFindsEveryPeripheralByTheVSPServiceAndDisablesTheScan() async throws {
        let expected = Self.peers
        try #require(!expected.isEmpty, "BLE_PEERS names no peripheral")
        let hci = try HCISocket.open(nil)
        defer { hci.close() }
        var table = DiscoveryTable(filter: .lairdVSP)
        let started = ContinuousClock.now
        let outcome = try await KernelScanner(socket: hci).scan(ScanParameters(), for: .seconds(20)) { advertisement in
            table.add(advertisement)
            return Set(table.matched.map(\.address.value)) != expected
        }
        print(
            "KERNEL-PATH scan: \(table.matched.count) of \(expected.count) found in \(ContinuousClock.now - started), \(outcome)"
        )
        #expect(outcome.ending == .stopped, "\(table.matched)")
        #expect(outcome.restoreFailure == nil)
        #expect(outcome.malformedReports == 0)
        #expect(Set(table.matched.map(\.address.value)) == expected)
        #expect(table.matched.allSatisfy { $0.name?.hasPrefix("PicoSim") == true && $0.connectable })
        // Scanning was disabled: a second scan can set its parameters again (a running scan would refuse).
        let again = try await KernelScanner(socket: hci).scan(ScanParameters(active: false), for: .milliseconds(300)) {
            _ in true
        }
        #expect(again.ending == .duration && again.restoreFailure == nil)
    }

    /// `hcipico scan --json` as built, on the kernel path (the default transport).
    @Test func scanCommandFindsThePeripheralsByTheVSPService() throws {
        let run = try #require(runProgram(try builtHCIPico(), ["scan", "--json", "--timeout", "3"]))
        print("KERNEL-PATH hcipico scan: status \(run.status)\n\(run.stdout)\(run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")
        let found = run.stdout.split(separator: "\n").compactMap { line -> UInt64? in
            guard let start = line.range(of: "\"address\":\"")?.upperBound else { return nil }
            return BluetoothAddress(line[start...].prefix(17))?.value
        }
        #expect(Set(found) == Self.peers, "\(run.stdout)")
        #expect(found.count == Self.peers.count, "one line per device")
        #expect(run.stdout.contains("569A1101-B87F-490C-92CB-11BA5EA5167C"))
    }

    @Test func readBDADDRIsAnsweredWithTheAdaptersAddress() async throws {
        let hci = try HCISocket.open(nil)
        defer { hci.close() }
        let result = try await hci.command(opcode: 0x1009, timeout: .seconds(5))  // Read BD_ADDR
        guard case .complete(let parameters) = result else {
            Issue.record("expected Command Complete, got \(result)")
            return
        }
        #expect(parameters.count == 7)
        #expect(parameters.first == 0x00)
        #expect(Array(parameters.dropFirst()) == hci.adapter.address.wireBytes)
    }

    @Test func userChannelRefusesTheAdapterTheKernelHolds() throws {
        let adapter = try HCIAdapters.resolve(nil)
        let error = failure { () throws(BLELinuxError) in try HCIUserChannelSocket.open(adapter.name) }
        #expect(error?.kind == .adapterUp)
    }

    @Test func attConnectExchangesMTUThenASecondSocketIsBusy() async throws {
        let peer = try #require(Self.peer, "BLE_PEER is not an address")
        let att = try await L2CAPATTSocket.connect(to: peer, timeout: .seconds(30))
        #expect(att.maximumPDULength >= 23)
        let responses = Mutex<[[UInt8]]>([])
        let closes = Mutex<[TransportError]>([])
        try att.start(
            receive: { pdu in responses.withLock { $0.append(Array(pdu)) } },
            closed: { reason in closes.withLock { $0.append(reason) } }
        )
        try att.send([0x02, 0x05, 0x02])  // Exchange MTU Request, client MTU 517
        #expect(await eventually(.seconds(10)) { responses.withLock { $0.contains { $0.first == 0x03 } } })
        let response = responses.withLock { $0.first { $0.first == 0x03 } }
        #expect(response?.count == 3, "Exchange MTU Response: opcode and server MTU")

        // The kernel allows one ATT socket per LE link: a second connect to the same peer is EBUSY.
        var second: BLELinuxError?
        do throws(BLELinuxError) {
            let extra = try await L2CAPATTSocket.connect(to: peer, timeout: .seconds(10))
            extra.close()
        } catch {
            second = error
        }
        #expect(second?.kind == .busy, "\(String(describing: second))")

        // LE Connection Update on this link's handle, through the raw socket: answered one way or the
        // other (the emulated controller may refuse it), never left hanging.
        let hci = try HCISocket.open(nil)
        defer { hci.close() }
        let events = hci.events()
        var parameters: [UInt8] = []
        for value in [att.connectionHandle, 6, 12, 0, 42, 0, 0] { parameters += le(UInt16(value)) }
        let answer = try await hci.command(opcode: 0x2013, parameters: parameters, timeout: .seconds(5))
        print("KERNEL-PATH LE Connection Update on handle \(att.connectionHandle): \(answer)")
        if answer == .status(0) {
            // Accepted: the outcome comes as LE Connection Update Complete (reported, not required: an
            // emulated controller may never send it).
            let update = await firstEvent(in: events, subevent: HCIEventPacket.LESubevent.connectionUpdateComplete)
            print("KERNEL-PATH LE Connection Update Complete: \(update.map { "\($0.parameters)" } ?? "none in 3 s")")
        }

        att.close()
        #expect(closes.withLock { $0 } == [.closed])
    }

    @Test func lowLatencyTuningReportsEveryStep() async throws {
        let peer = try #require(Self.peer, "BLE_PEER is not an address")
        let att = try await L2CAPATTSocket.connect(to: peer, timeout: .seconds(30))
        defer { att.close() }
        // No adapter named: the raw socket goes to the adapter whose address is the link's source.
        let source = try att.sourceAddress()
        let target = try KernelLinkTuning.open(for: att, adapter: nil)
        defer { target.close() }
        #expect(target.hci.adapter.address.value == source.value)
        let report = await LinkTuner().apply(.lowLatency, to: target)
        for line in report.lines { print("KERNEL-PATH \(line)") }
        #expect(report.lines.count == 5)
        // The local features come from Command Complete on the raw socket: always answered.
        #expect(report.localFeatures.value != nil, "\(report.localFeatures)")
        // Whatever the emulated controller answers, each step ends in a reported outcome; the
        // connection update is accepted by Bumble's controller and its Complete event read back.
        if case .done(let state) = report.connection {
            #expect(state.interval >= 6 && state.interval <= 12)
            #expect(state.supervisionTimeout == 200)
        }
    }

    /// `hcipico gatt PEER --random services` as built, over the guest kernel's L2CAP socket: the
    /// peer's VSP service, its characteristics and their names; then a write to RX echoed on TX.
    @Test func gattCommandDiscoversAndEchoesOverTheKernelPath() throws {
        let peer = try #require(Self.peer, "BLE_PEER is not an address")
        let binary = try builtHCIPico()
        let services = try #require(runProgram(binary, ["gatt", peer.description, "--random", "services"]))
        print("KERNEL-PATH gatt services: status \(services.status)\n\(services.stdout)\(services.stderr)")
        #expect(services.status == 0, "\(services.stderr)")
        #expect(services.stdout.contains("569A1101-B87F-490C-92CB-11BA5EA5167C Laird Virtual Serial Port service"))
        #expect(services.stdout.contains("569A2000-B87F-490C-92CB-11BA5EA5167C Laird VSP TX"))
        #expect(services.stdout.contains("descriptor 2902 Client Characteristic Configuration"))
        let capture = "/tmp/hcipico-kernel-\(getpid()).btsnoop"
        defer { unlink(capture) }
        let echo = try #require(
            runProgram(
                binary,
                [
                    "gatt", peer.description, "--random", "--btsnoop", capture, "subscribe",
                    "569a2000-b87f-490c-92cb-11ba5ea5167c", "--count", "1", "--format", "text",
                    "--write-to", "569a2001-b87f-490c-92cb-11ba5ea5167c", "--write", "6b65726e656c",
                ]
            )
        )
        #expect(echo.status == 0, "\(echo.stderr)")
        #expect(echo.stdout.hasSuffix(" kernel\n"), "\(echo.stdout)")
        try checkATTCapture(capture)
    }

    /// The kernel path's `--btsnoop`: ATT PDUs wrapped as ACL on CID 4 (datalink 1002), the write of
    /// "kernel" sent and its echo received, in that order.
    func checkATTCapture(_ path: String) throws {
        let bytes = (FileManager.default.contents(atPath: path)).map { Array($0) } ?? []
        try #require(!bytes.isEmpty, "no capture at \(path)")
        let records = try bytes.withUnsafeBytes { raw in try BTSnoopRecord.parseFile(raw) }
        let att = records.filter { $0.indicator == .acl && $0.packet.count >= 9 }
        print("KERNEL-PATH btsnoop: \(records.count) records, \(att.count) ATT")
        #expect(att.allSatisfy { $0.packet[6] == 0x04 && $0.packet[7] == 0x00 }, "every PDU on CID 4")
        let payload = Array("kernel".utf8)
        let write = att.firstIndex {
            !$0.received && [0x12, 0x52].contains($0.packet[8]) && Array($0.packet[11...]) == payload
        }
        let echo = att.firstIndex { $0.received && $0.packet[8] == 0x1B && Array($0.packet[11...]) == payload }
        #expect(att.contains { !$0.received && $0.packet[8] == 0x02 }, "Exchange MTU Request sent")
        #expect(att.contains { $0.received && $0.packet[8] == 0x03 }, "Exchange MTU Response received")
        let (sent, received) = (try #require(write, "the write is captured"), try #require(echo, "the echo"))
        #expect(sent < received)
    }

    /// The first LE Meta event with `subevent` within three seconds, if any.
    func firstEvent(in events: AsyncStream<HCIEventPacket>, subevent: UInt8) async -> HCIEventPacket? {
        await withTaskGroup(of: HCIEventPacket?.self) { group in
            group.addTask {
                for await event in events where event.leSubevent == subevent { return event }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(3))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
