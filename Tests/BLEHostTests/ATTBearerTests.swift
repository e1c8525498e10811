import BLEHost
import BLETesting
import Coordination
import Testing

/// The bearer against a peer the test plays by hand on an `EmbeddedATTTransport`, on a manual clock:
/// no thread, no socket, no sleep. What the bearer sends is in `link.outbound` as soon as it sends it;
/// what the test delivers is handled before `deliver` returns.
@Suite struct ATTBearerTests {
    let clock = ManualClock()

    func makeBearer() throws -> (ATTBearer, EmbeddedATTTransport) { try embeddedBearer(clock: clock) }

    @Test func keepsOneRequestInFlightAndQueuesTheRest() async throws {
        let (bearer, link) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x03, 0x00]) }
        let second = Task { try await bearer.request([0x0A, 0x05, 0x00]) }
        // Both requests are with the bearer: one on the air, one waiting behind it.
        #expect(await eventually { link.outbound.count == 1 && bearer.waitingRequestCount == 1 })
        #expect(link.outbound.count == 1, "the second request must wait for the first response")
        let firstHandle = link.outbound[0][1]
        link.deliver([0x0B, firstHandle])
        #expect(link.outbound.count == 2, "the response sends the next request at once")
        link.deliver([0x0B, link.outbound[1][1]])
        let a = try await first.value
        let b = try await second.value
        #expect(Set([a, b]) == Set([[0x0B, 0x03], [0x0B, 0x05]]))
        #expect([a, b].contains([0x0B, firstHandle]))
    }

    @Test func dropsAResponseMatchingNoRequest() async throws {
        let (bearer, link) = try makeBearer()
        link.deliver([0x0B, 0x99])  // nothing pending
        #expect(bearer.droppedPDUCount == 1)
        let value = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        #expect(await eventually { link.outbound.count == 1 })
        link.deliver([0x13])  // a Write Response does not answer a Read Request
        link.deliver([0x01, 0x12, 0x01, 0x00, 0x03])  // an Error Response for another request
        link.deliver([0x0B, 0x42])
        #expect(try await value.value == [0x0B, 0x42])
        #expect(bearer.droppedPDUCount == 3)
    }

    @Test func errorResponseBecomesATTError() async throws {
        let (bearer, link) = try makeBearer()
        let value = Task { try await bearer.request([0x0A, 0x34, 0x12]) }
        #expect(await eventually { link.outbound.count == 1 })
        link.deliver([0x01, 0x0A, 0x34, 0x12, 0x02])
        await #expect(throws: GATTError.att(ATTError(code: .readNotPermitted, handle: 0x1234, request: 0x0A))) {
            try await value.value
        }
    }

    @Test func transactionTimeoutClosesTheBearerWithoutRealWaiting() async throws {
        let (bearer, link) = try makeBearer()
        let closedWith = ClosedBox()
        bearer.onClose { closedWith.set($0) }
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        let second = Task { try await bearer.request([0x0A, 0x02, 0x00]) }
        #expect(await eventually { link.outbound.count == 1 && bearer.waitingRequestCount == 1 })
        clock.advance(by: .seconds(29))
        #expect(bearer.closeReason == nil)
        clock.advance(by: .seconds(2))
        let timeout = GATTError.transactionTimeout(request: 0x0A)
        #expect(bearer.closeReason == timeout, "the wake at 30 s closed it, on this thread")
        await #expect(throws: timeout) { try await first.value }
        await #expect(throws: timeout) { try await second.value }
        #expect(closedWith.value == timeout)
        #expect(!link.deliver([0x0B, 0x00]), "the bearer closed its transport")
        await #expect(throws: timeout) { try await bearer.request([0x0A, 0x01, 0x00]) }
        #expect(link.outbound.count == 1, "no ATT PDU after the timeout")
        #expect(clock.pendingWakes == 0, "a closed bearer asks for no more wakes")
    }

    @Test func disconnectFailsPendingAndQueuedRequests() async throws {
        let (bearer, link) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        let second = Task { try await bearer.request([0x0A, 0x02, 0x00]) }
        #expect(await eventually { link.outbound.count == 1 && bearer.waitingRequestCount == 1 })
        link.disconnect()
        let expected = GATTError.disconnected(.disconnected(reason: nil))
        await #expect(throws: expected) { try await first.value }
        await #expect(throws: expected) { try await second.value }
    }

    @Test func answersMTUAndRejectsUnknownRequestsWithoutAServer() throws {
        let (bearer, link) = try makeBearer()
        link.deliver([0x02, 0xF7, 0x00])  // Exchange MTU, client MTU 247
        link.deliver([0x3F, 0x00])  // not an ATT request this server knows
        link.deliver([0x7F, 0x00])  // an unknown command: ignored
        link.deliver([0x02, 0x17])  // a malformed Exchange MTU
        #expect(
            link.outbound == [[0x03, 0x05, 0x02], [0x01, 0x3F, 0x00, 0x00, 0x06], [0x01, 0x02, 0x00, 0x00, 0x04]]
        )
        #expect(bearer.mtu == 247)
    }

    @Test func exchangesMTUAsClient() async throws {
        let (bearer, link) = try makeBearer()
        let mtu = Task { try await bearer.exchangeMTU(185) }
        #expect(await eventually { link.outbound.count == 1 })
        #expect(link.outbound[0] == [0x02, 185, 0])
        link.deliver([0x03, 0x00, 0x01])  // server offers 256
        #expect(try await mtu.value == 185)
        #expect(bearer.mtu == 185)
    }

    @Test func confirmsIndicationsAndDeliversNotificationsInOrder() throws {
        let (bearer, link) = try makeBearer()
        let seen = ClosedBox()
        bearer.setNotificationHandler { handle, value, isIndication in
            seen.append("\(handle):\(Array(value)):\(isIndication)")
        }
        for index in 0..<50 { link.deliver([0x1B, 0x10, 0x00, UInt8(index)]) }
        link.deliver([0x1D, 0x11, 0x00, 0xAA])
        link.deliver([0x1B, 0x10])  // too short: dropped
        #expect(link.outbound == [[0x1E]])
        #expect(seen.items == (0..<50).map { "16:[\($0)]:false" } + ["17:[170]:true"])
        #expect(bearer.droppedPDUCount == 1)
    }

    @Test func injectedDropLeadsToTimeout() async throws {
        let (local, remote) = try SocketPairATTTransport.makePair()
        local.injectFaults(ATTFault.on(opcode: 0x0A, .drop))
        let bearer = ATTBearer(transport: local, clock: clock)
        try bearer.start()
        let peer = try RecordingPeer(remote)
        let value = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        #expect(await eventually { local.sentCount == 1 }, "the request was sent, and the fault dropped it")
        clock.advance(by: .seconds(31))
        await #expect(throws: GATTError.transactionTimeout(request: 0x0A)) { try await value.value }
        #expect(peer.received.isEmpty)
    }
}

/// A thread-safe recorder for values seen in callbacks.
final class ClosedBox: @unchecked Sendable {
    private let lock = NSLockLike()
    private var stored: GATTError?
    private var list: [String] = []
    func set(_ error: GATTError) { lock.locked { stored = error } }
    var value: GATTError? { lock.locked { stored } }
    func append(_ item: String) { lock.locked { list.append(item) } }
    var items: [String] { lock.locked { list } }
}

/// A started bearer on `clock` and a raw peer on the other end of its socketpair.
func startedBearer(clock: ManualClock) throws -> (ATTBearer, RecordingPeer) {
    let (local, remote) = try SocketPairATTTransport.makePair()
    let bearer = ATTBearer(transport: local, clock: clock)
    try bearer.start()
    return (bearer, try RecordingPeer(remote))
}

/// A started bearer on `clock` over an embedded transport the test plays the peer on.
func embeddedBearer(clock: ManualClock) throws -> (ATTBearer, EmbeddedATTTransport) {
    let link = EmbeddedATTTransport()
    let bearer = ATTBearer(transport: link, clock: clock)
    try bearer.start()
    return (bearer, link)
}
