import BLEDiagnostics
import BLEHost
import BLETesting
import BLEWire
import Synchronization
import Testing

/// `GATTEchoProbe` against an in-memory VSP-shaped server that echoes RX writes on TX (or, to test the
/// failures, answers wrongly or not at all).
@Suite struct GATTEchoProbeTests {
    enum Behaviour: Sendable {
        case echo, corrupt, silent
        /// The echo in notifications of at most `piece` bytes, as a serial bridge forwards its UART.
        case pieces(Int)
        /// The echo in pieces of three bytes, the second one reversed.
        case corruptSecondPiece
        /// The written bytes twice, in one notification.
        case doubled
    }

    /// A server whose RX handler answers each write per `behaviour`, and a connected client.
    struct EchoPair {
        let client: GATTClient
        let server: GATTServer
        let serverTransport: SocketPairATTTransport
        let tx: GATTCharacteristic
        let rx: GATTCharacteristic
    }

    final class ServerBox: Sendable {
        let server = Mutex<GATTServer?>(nil)
        let txHandle = Mutex<UInt16>(0)
        let writes = Mutex<[[UInt8]]>([])
    }

    static func make(_ behaviour: Behaviour, mtu: Int = 247) async throws -> (EchoPair, ServerBox) {
        let (clientEnd, serverEnd) = try SocketPairATTTransport.makePair()
        let box = ServerBox()
        let database = GATTDatabase()
        let handles = database.addService(
            GATTServiceDefinition(
                uuid: .lairdVSPService,
                characteristics: [
                    GATTCharacteristicDefinition(uuid: .lairdVSPTx, properties: .notify),
                    GATTCharacteristicDefinition(
                        uuid: .lairdVSPRx,
                        properties: [.write, .writeWithoutResponse],
                        maximumLength: 244,
                        storesWrites: false,
                        onWrite: { write in
                            box.writes.withLock { $0.append(Array(write.value)) }
                            let server = box.server.withLock { $0 }
                            let tx = box.txHandle.withLock { $0 }
                            switch behaviour {
                            case .echo: _ = try? server?.notify(tx, value: write.value)
                            case .corrupt: _ = try? server?.notify(tx, value: Array(write.value.reversed()))
                            case .silent: break
                            case .pieces(let size):
                                for start in stride(from: 0, to: write.value.count, by: size) {
                                    let piece = Array(write.value[start..<min(start + size, write.value.count)])
                                    _ = try? server?.notify(tx, value: piece)
                                }
                            case .corruptSecondPiece:
                                let bytes = Array(write.value)
                                _ = try? server?.notify(tx, value: Array(bytes[0..<3]))
                                _ = try? server?.notify(tx, value: Array(bytes[3..<6].reversed()))
                            case .doubled: _ = try? server?.notify(tx, value: Array(write.value) + Array(write.value))
                            }
                            return nil
                        }
                    ),
                ]
            )
        )
        let serverBearer = ATTBearer(transport: serverEnd)
        let server = GATTServer(database: database, bearer: serverBearer)
        box.server.withLock { $0 = server }
        box.txHandle.withLock { $0 = handles.valueHandle(of: .lairdVSPTx)! }
        try serverBearer.start()
        let client = try await GATTClient.connect(transport: clientEnd, mtu: mtu)
        let service = try #require(try await client.discoverPrimaryServices(uuid: .lairdVSPService).first)
        let characteristics = try await client.discoverCharacteristics(of: service)
        let tx = try #require(characteristics.first { $0.uuid == .lairdVSPTx })
        let rx = try #require(characteristics.first { $0.uuid == .lairdVSPRx })
        let link = EchoPair(client: client, server: server, serverTransport: serverEnd, tx: tx, rx: rx)
        return (link, box)
    }

    static func probe(_ link: EchoPair, size: Int, count: Int) async throws -> GATTEchoProbe {
        let probe = try GATTEchoProbe(
            client: link.client,
            writeHandle: link.rx.valueHandle,
            payloadSize: size,
            count: count
        )
        _ = try await link.client.subscribe(to: link.tx, ended: { probe.fail($0) }) { probe.receive($0) }
        return probe
    }

    @Test(arguments: [4, 10, 244]) func everyRoundTripIsTimedAndNumbered(size: Int) async throws {
        let (link, box) = try await Self.make(.echo)
        let probe = try await Self.probe(link, size: size, count: 300)
        let result = try await probe.run(stallTimeout: .seconds(10))
        #expect(result.count == 300)
        #expect(result.nanoseconds.allSatisfy { $0 > 0 })
        #expect(result.minimum <= result.median && result.median <= result.percentile(0.95))
        #expect(result.percentile(0.95) <= result.maximum)
        let writes = box.writes.withLock { $0 }
        #expect(writes.count == 300, "one write per round trip, the next only after the echo")
        for (index, write) in writes.enumerated() {
            #expect(write.count == size)
            let number = write.prefix(4).reversed().reduce(0) { $0 << 8 | Int($1) }
            #expect(number == index)
        }
    }

    @Test func warmUpRoundTripsRunFirstAndAreNotTimed() async throws {
        let (link, box) = try await Self.make(.echo)
        let marks = Mutex<[(Bool, Int)]>([])
        let probe = try GATTEchoProbe(
            client: link.client,
            writeHandle: link.rx.valueHandle,
            payloadSize: 8,
            count: 30,
            warmup: 5,
            boundaries: { begin in marks.withLock { $0.append((begin, box.writes.withLock { $0.count })) } }
        )
        _ = try await link.client.subscribe(to: link.tx) { probe.receive($0) }
        let result = try await probe.run(stallTimeout: .seconds(10))
        #expect(result.count == 30)
        #expect(box.writes.withLock { $0.count } == 35)
        // The timed part starts before the sixth write and ends after the 35th echo.
        let seen = marks.withLock { $0 }
        #expect(seen.map(\.0) == [true, false])
        #expect(seen.map(\.1) == [5, 35])
    }

    @Test func anotherAnswerThanTheEchoFailsTheFirstRoundTrip() async throws {
        let (link, _) = try await Self.make(.corrupt)
        let probe = try await Self.probe(link, size: 10, count: 5)
        await #expect(throws: GATTEchoProbe.Failure.mismatch(roundTrip: 1, offset: 0, length: 10, expected: 10)) {
            try await probe.run(stallTimeout: .seconds(10))
        }
    }

    @Test(arguments: [1, 3, 7]) func anEchoInPiecesEndsItsRoundTripWithTheLastPiece(piece: Int) async throws {
        let (link, box) = try await Self.make(.pieces(piece))
        let probe = try await Self.probe(link, size: 20, count: 50)
        let result = try await probe.run(stallTimeout: .seconds(10))
        #expect(result.count == 50)
        #expect(result.notifications == 50 * ((20 + piece - 1) / piece))
        #expect(box.writes.withLock { $0.count } == 50, "the next write only after the whole echo")
    }

    @Test func aPieceThatIsNotTheNextPartOfTheEchoFails() async throws {
        let (link, _) = try await Self.make(.corruptSecondPiece)
        let probe = try await Self.probe(link, size: 10, count: 5)
        await #expect(throws: GATTEchoProbe.Failure.mismatch(roundTrip: 1, offset: 3, length: 3, expected: 10)) {
            try await probe.run(stallTimeout: .seconds(10))
        }
    }

    @Test func anEchoLongerThanTheWriteFails() async throws {
        let (link, _) = try await Self.make(.doubled)
        let probe = try await Self.probe(link, size: 10, count: 5)
        await #expect(throws: GATTEchoProbe.Failure.mismatch(roundTrip: 1, offset: 0, length: 20, expected: 10)) {
            try await probe.run(stallTimeout: .seconds(10))
        }
    }

    @Test func noAnswerStallsWithinTheTimeout() async throws {
        let (link, box) = try await Self.make(.silent)
        let probe = try await Self.probe(link, size: 10, count: 5)
        // The stall is what ends the wait: the silent peer answers nothing, so nothing else could.
        await #expect(throws: GATTEchoProbe.Failure.stalled(roundTrip: 1, after: .milliseconds(200))) {
            try await probe.run(stallTimeout: .milliseconds(200))
        }
        #expect(box.writes.withLock { $0.count } == 1)
    }

    /// A cancelled wait ends the run as cancelled, at once: not as a stall a minute later.
    @Test func aCancelledRunEndsAsCancelled() async throws {
        let (peer, writes) = try await Self.make(.silent)
        let probe = try await Self.probe(peer, size: 10, count: 5)
        let run = Task { () -> GATTEchoProbe.Failure? in
            do throws(GATTEchoProbe.Failure) {
                _ = try await probe.run(stallTimeout: .seconds(60))
                return nil
            } catch {
                return error
            }
        }
        #expect(await eventually(.seconds(30)) { writes.writes.withLock { $0.count } >= 1 })
        run.cancel()
        #expect(await run.value == GATTEchoProbe.Failure.gatt(.cancelled))
    }

    @Test func theLinkClosingEndsTheRun() async throws {
        let (link, box) = try await Self.make(.silent)
        let probe = try await Self.probe(link, size: 10, count: 5)
        Task {
            // Once the first write has reached the silent server, the link goes.
            _ = await eventually(.seconds(30)) { box.writes.withLock { $0.count } >= 1 }
            link.serverTransport.close()
        }
        do {
            _ = try await probe.run(stallTimeout: .seconds(20))
            Issue.record("the run finished although the link closed")
        } catch {
            guard case .gatt = error else {
                Issue.record("expected the GATT failure of the closed link, got \(error)")
                return
            }
        }
    }

    @Test func payloadsOutsideFourToMTUMinusThreeAreRefused() async throws {
        let (link, _) = try await Self.make(.echo, mtu: 23)
        for size in [0, 3, 21] {
            #expect(throws: GATTError.self) {
                _ = try GATTEchoProbe(
                    client: link.client,
                    writeHandle: link.rx.valueHandle,
                    payloadSize: size,
                    count: 1
                )
            }
        }
        #expect(throws: GATTError.self) {
            _ = try GATTEchoProbe(client: link.client, writeHandle: link.rx.valueHandle, payloadSize: 20, count: 0)
        }
        _ = try GATTEchoProbe(client: link.client, writeHandle: link.rx.valueHandle, payloadSize: 20, count: 1)
    }

    @Test func summariesFollowAttRttsDefinitions() {
        let result = GATTEchoResult(nanoseconds: (1...20).reversed().map { Int64($0) * 1000 })
        #expect(result.minimum == 1000)
        #expect(result.maximum == 20_000)
        #expect(result.median == 10_500)
        #expect(result.percentile(0.95) == 20_000)  // rank ⌊20 × 0.95⌋ = 19
        #expect(GATTEchoResult(nanoseconds: [5, 1, 3]).median == 3)
        #expect(GATTEchoResult(nanoseconds: []).median == 0)
    }
}
