import BLEHost
import BLETesting
import BLEWire
import Coordination
import Foundation
import PicoLink
import PicoSimulator
import Synchronization
import Testing

/// `SerialLink` over the HM-10 and EmStat Pico simulators.
@Suite struct SerialLinkTests {
    /// Collects what the link delivers, in order.
    final class Collector: Sendable {
        let bytes = Mutex<[UInt8]>([])
        func append(_ value: UnsafeRawBufferPointer) { bytes.withLock { $0.append(contentsOf: value) } }
        var count: Int { bytes.withLock { $0.count } }

        /// Whether `count` bytes came back. A quiet of a fraction of a second is no sign that the echo
        /// is over while the whole suite runs at once on two cores and can hold the link's tasks back
        /// for longer; this waits for the bytes themselves (at most a minute).
        func received(_ count: Int) async -> Bool { await eventually(.seconds(60)) { self.count >= count } }
    }

    static func hm10(
        _ configuration: HM10Configuration = HM10Configuration(),
        profile: SerialProfile? = nil,
        clock: any TimeSource = SystemClock(),
        into collector: Collector
    ) async throws -> (SimulatedHM10Peripheral, SerialLink) {
        let (host, device) = try SocketPairATTTransport.makePair()
        let peripheral = SimulatedHM10Peripheral(transport: device, configuration: configuration)
        try peripheral.start()
        let client = try await GATTClient.connect(transport: host)
        let link = try await SerialLink.open(client: client, profile: profile, clock: clock) { collector.append($0) }
        return (peripheral, link)
    }

    /// The quiet is counted on the link's clock from the last value: the wait ends once the clock has
    /// passed it, not before, and a link that closes ends it at once.
    @Test func theQuietIsTimedOnTheLinksClockAndACloseEndsIt() async throws {
        let clock = ManualClock()
        let collector = Collector()
        let (peripheral, link) = try await Self.hm10(clock: clock, into: collector)
        let waiting = Task { try await link.waitUntilQuiet(for: .seconds(5)) }
        #expect(await eventually { clock.pendingDeadlines == [.seconds(5)] })
        clock.advance(by: .seconds(4))
        #expect(clock.pendingDeadlines == [.seconds(5)], "still waiting one second before the quiet is over")
        clock.advance(by: .seconds(1))
        if case .failure(let error) = await waiting.result { Issue.record("\(error)") }
        // The next wait: the peripheral goes away while it waits.
        let closing = Task { try await link.waitUntilQuiet(for: .seconds(3600)) }
        #expect(await eventually { clock.pendingDeadlines.count == 1 })
        peripheral.close()
        let ended = await closing.result
        guard case .failure(let error) = ended, case .connectionLost? = error as? SerialLinkError else {
            Issue.record("\(ended)")
            return
        }
        // The quiet's sleep was cancelled with the wait: no wake is left behind.
        #expect(await eventually { clock.pendingWakes == 0 })
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test func roundTripsThroughTheHM10ByteExactInValuesOf20Bytes() async throws {
        let collector = Collector()
        let (peripheral, link) = try await Self.hm10(into: collector)
        defer { peripheral.close() }
        #expect(link.profile == .hm10, "detected from the services")
        #expect(link.writer.mode == .commandsWithBarrier(window: SerialWriter.defaultWindow))
        let data = Self.random(20_000)
        try await link.send(data)
        #expect(await collector.received(data.count))
        try await link.waitUntilQuiet(for: .milliseconds(200))
        #expect(collector.bytes.withLock { $0 } == data)
        let statistics = peripheral.statistics
        #expect(statistics.droppedBytes == 0)
        #expect(statistics.largestWrite == 20, "no write over ATT_MTU − 3")
        #expect(link.writer.statistics.largest == 20)
        #expect(statistics.writeRequests > 0 && statistics.writeCommands > statistics.writeRequests)
    }

    @Test func pacingKeepsASlowUARTFromOverrunning() async throws {
        let collector = Collector()
        let slow = HM10Configuration(receiveCapacity: 100, uartBytesPerSecond: 20_000)
        let (peripheral, link) = try await Self.hm10(slow, into: collector)
        defer { peripheral.close() }
        let data = Self.random(4_000)
        try await link.send(data)
        #expect(await collector.received(data.count))
        try await link.waitUntilQuiet(for: .milliseconds(300))
        #expect(peripheral.statistics.droppedBytes == 0)
        #expect(collector.bytes.withLock { $0 } == data)
    }

    @Test func aWriteOnlyWithResponseCharacteristicGetsWriteRequests() async throws {
        let collector = Collector()
        let module = HM10Configuration(dataProperties: [.read, .write, .notify])
        let (peripheral, link) = try await Self.hm10(module, into: collector)
        defer { peripheral.close() }
        #expect(link.writer.mode == .requests)
        let data = Self.random(2_000)
        try await link.send(data)
        #expect(await collector.received(data.count))
        try await link.waitUntilQuiet(for: .milliseconds(200))
        #expect(collector.bytes.withLock { $0 } == data)
        #expect(peripheral.statistics.writeCommands == 0)
        #expect(peripheral.statistics.writeRequests == 100)
    }

    @Test func aWriteWithoutResponseOnlyCharacteristicIsPacedByAByteBudget() async throws {
        let collector = Collector()
        // The FIFO holds the whole transfer: without flow control a module overruns whenever its UART
        // stalls (here: whenever the simulator's thread is not scheduled for a few milliseconds), and
        // this test is about the writer's pacing, not about overruns (pacingKeepsASlowUART… is).
        let module = HM10Configuration(receiveCapacity: 2_000, dataProperties: [.writeWithoutResponse, .notify])
        let (peripheral, link) = try await Self.hm10(module, into: collector)
        defer { peripheral.close() }
        #expect(link.writer.mode == .commands(bytesPerSecond: SerialWriter.defaultBytesPerSecond))
        let data = Self.random(2_000)
        let start = ContinuousClock.now
        try await link.send(data)
        let elapsed = ContinuousClock.now - start
        #expect(await collector.received(data.count))
        try await link.waitUntilQuiet(for: .milliseconds(200))
        #expect(collector.bytes.withLock { $0 } == data)
        #expect(peripheral.statistics.writeRequests == 0)
        // 2000 bytes at 11 520 B/s after a 230-byte burst: at least 0.15 s.
        #expect(elapsed >= .milliseconds(140), "\(elapsed)")
    }

    @Test func customUUIDsNameTheCharacteristics() async throws {
        let collector = Collector()
        let custom = SerialProfile.custom(service: .hm10Service, rx: .hm10Characteristic, tx: .hm10Characteristic)
        let (peripheral, link) = try await Self.hm10(profile: custom, into: collector)
        defer { peripheral.close() }
        try await link.send(Array("hello".utf8))
        #expect(await collector.received(5))
        try await link.waitUntilQuiet(for: .milliseconds(100))
        #expect(collector.bytes.withLock { $0 } == Array("hello".utf8))
    }

    @Test func aMissingServiceIsAClearError() async throws {
        let collector = Collector()
        let nordic = SerialProfile.nordicUART
        await #expect(throws: SerialLinkError.self) { _ = try await Self.hm10(profile: nordic, into: collector) }
    }

    @Test func detectsTheProfileFromTheServices() {
        func services(_ uuids: BluetoothUUID...) -> [GATTService] {
            uuids.enumerated().map {
                GATTService(uuid: $1, handle: UInt16($0 * 10 + 1), endHandle: UInt16($0 * 10 + 9))
            }
        }
        #expect(SerialProfile.detect(in: services(.genericAccessService, .hm10Service)) == .hm10)
        #expect(SerialProfile.detect(in: services(.nordicUARTService)) == .nordicUART)
        #expect(SerialProfile.detect(in: services(.hm10Service, .lairdVSPService)) == .lairdVSP)
        #expect(SerialProfile.detect(in: services(.genericAccessService, .deviceInformationService)) == nil)
        #expect(SerialProfile.nordicUART.rx == .nordicUARTRx && SerialProfile.nordicUART.tx == .nordicUARTTx)
    }

    /// A Nordic UART peripheral made here: RX (write without response only) is echoed on TX.
    @Test func detectsAndUsesNordicUARTWithSeparateCharacteristics() async throws {
        let (host, device) = try SocketPairATTTransport.makePair()
        let bearer = ATTBearer(transport: device)
        let database = GATTDatabase()
        let txHandle = Mutex<UInt16>(0)
        let handles = database.addService(
            GATTServiceDefinition(
                uuid: .nordicUARTService,
                characteristics: [
                    GATTCharacteristicDefinition(
                        uuid: .nordicUARTRx,
                        properties: [.writeWithoutResponse],
                        storesWrites: false,
                        onWrite: { write in
                            _ = try? write.server.notify(txHandle.withLock { $0 }, value: write.value)
                            return nil
                        }
                    ),
                    GATTCharacteristicDefinition(uuid: .nordicUARTTx, properties: [.notify]),
                ]
            )
        )
        txHandle.withLock { $0 = handles.valueHandle(of: .nordicUARTTx) ?? 0 }
        let server = GATTServer(database: database, bearer: bearer)
        try bearer.start()
        defer { server.bearer.close() }
        let client = try await GATTClient.connect(transport: host)
        let collector = Collector()
        let link = try await SerialLink.open(client: client) { collector.append($0) }
        #expect(link.profile == .nordicUART)
        #expect(link.rx.uuid == .nordicUARTRx && link.tx.uuid == .nordicUARTTx)
        #expect(link.writer.mode == .commands(bytesPerSecond: SerialWriter.defaultBytesPerSecond))
        let data = Self.random(3_000)
        try await link.send(data)
        #expect(await collector.received(data.count))
        try await link.waitUntilQuiet(for: .milliseconds(200))
        #expect(collector.bytes.withLock { $0 } == data)
        #expect(client.mtu == 517)
        #expect(link.writer.statistics.largest == 512, "values sized to the MTU, and never over 512 bytes")
    }

    @Test func talksToTheSimulatedPicoOverVSP() async throws {
        let (host, device) = try SocketPairATTTransport.makePair()
        let peripheral = SimulatedPicoPeripheral(transport: device, configuration: .fast)
        try peripheral.start()
        defer { peripheral.close() }
        let client = try await GATTClient.connect(transport: host)
        let collector = Collector()
        let link = try await SerialLink.open(client: client) { collector.append($0) }
        #expect(link.profile == .lairdVSP)
        #expect(link.writer.mode == .vsp)
        try await link.send(Array("t\n".utf8))
        let answered = await eventually {
            String(decoding: collector.bytes.withLock { $0 }, as: UTF8.self).contains("*\n")
        }
        try #require(answered)
        #expect(String(decoding: collector.bytes.withLock { $0 }, as: UTF8.self).hasPrefix("tespico"))
    }

    @Test func aDroppedLinkEndsTheWaitWithConnectionLost() async throws {
        let collector = Collector()
        let (peripheral, link) = try await Self.hm10(into: collector)
        try await link.send(Array("abc".utf8))
        try #require(await eventually { collector.count == 3 })
        peripheral.close()
        await #expect(throws: SerialLinkError.self) { try await link.waitUntilQuiet(for: .seconds(5)) }
        #expect(link.closeReason != nil)
    }
}
