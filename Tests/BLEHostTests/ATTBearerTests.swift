import BLEHost
import BLETesting
import Testing

/// The bearer against a raw peer that answers by hand.
@Suite struct ATTBearerTests {
    let clock = ManualATTClock()

    func makeBearer() throws -> (ATTBearer, RecordingPeer) { try startedBearer(clock: clock) }

    @Test func keepsOneRequestInFlightAndQueuesTheRest() async throws {
        let (bearer, peer) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x03, 0x00]) }
        let second = Task { try await bearer.request([0x0A, 0x05, 0x00]) }
        #expect(await peer.waitForPDUs(1).first?.isEmpty == false)
        try await Task.sleep(for: .milliseconds(20))
        #expect(peer.received.count == 1, "the second request must wait for the first response")
        let firstHandle = peer.received[0][1]
        try peer.send([0x0B, firstHandle])
        let all = await peer.waitForPDUs(2)
        try peer.send([0x0B, all[1][1]])
        let a = try await first.value
        let b = try await second.value
        #expect(Set([a, b]) == Set([[0x0B, 0x03], [0x0B, 0x05]]))
        #expect([a, b].contains([0x0B, firstHandle]))
    }

    @Test func dropsAResponseMatchingNoRequest() async throws {
        let (bearer, peer) = try makeBearer()
        try peer.send([0x0B, 0x99])  // nothing pending
        #expect(await eventually(.seconds(30)) { bearer.droppedPDUCount == 1 })
        let value = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        _ = await peer.waitForPDUs(1)
        try peer.send([0x13])  // a Write Response does not answer a Read Request
        try peer.send([0x01, 0x12, 0x01, 0x00, 0x03])  // an Error Response for another request
        try peer.send([0x0B, 0x42])
        #expect(try await value.value == [0x0B, 0x42])
        #expect(bearer.droppedPDUCount == 3)
    }

    @Test func errorResponseBecomesATTError() async throws {
        let (bearer, peer) = try makeBearer()
        let value = Task { try await bearer.request([0x0A, 0x34, 0x12]) }
        _ = await peer.waitForPDUs(1)
        try peer.send([0x01, 0x0A, 0x34, 0x12, 0x02])
        await #expect(throws: GATTError.att(ATTError(code: .readNotPermitted, handle: 0x1234, request: 0x0A))) {
            try await value.value
        }
    }

    @Test func transactionTimeoutClosesTheBearerWithoutRealWaiting() async throws {
        let (bearer, peer) = try makeBearer()
        let closedWith = ClosedBox()
        bearer.onClose { closedWith.set($0) }
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        let second = Task { try await bearer.request([0x0A, 0x02, 0x00]) }
        _ = await peer.waitForPDUs(1)
        clock.advance(by: .seconds(29))
        #expect(bearer.closeReason == nil)
        clock.advance(by: .seconds(2))
        let timeout = GATTError.transactionTimeout(request: 0x0A)
        await #expect(throws: timeout) { try await first.value }
        await #expect(throws: timeout) { try await second.value }
        #expect(closedWith.value == timeout)
        #expect(bearer.closeReason == timeout)
        _ = await peer.waitForPDUs(99, timeout: .seconds(2))  // returns once the link is down
        #expect(peer.closeReason == .disconnected(reason: nil))
        await #expect(throws: timeout) { try await bearer.request([0x0A, 0x01, 0x00]) }
        #expect(peer.received.count == 1, "no ATT PDU after the timeout")
        #expect(clock.activeTickers == 0)
    }

    @Test func disconnectFailsPendingAndQueuedRequests() async throws {
        let (bearer, peer) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        let second = Task { try await bearer.request([0x0A, 0x02, 0x00]) }
        _ = await peer.waitForPDUs(1)
        peer.transport.close()
        let expected = GATTError.disconnected(.disconnected(reason: nil))
        await #expect(throws: expected) { try await first.value }
        await #expect(throws: expected) { try await second.value }
    }

    @Test func answersMTUAndRejectsUnknownRequestsWithoutAServer() async throws {
        let (bearer, peer) = try makeBearer()
        try peer.send([0x02, 0xF7, 0x00])  // Exchange MTU, client MTU 247
        try peer.send([0x3F, 0x00])  // not an ATT request this server knows
        try peer.send([0x7F, 0x00])  // an unknown command: ignored
        try peer.send([0x02, 0x17])  // a malformed Exchange MTU
        let pdus = await peer.waitForPDUs(3)
        #expect(pdus[0] == [0x03, 0x05, 0x02])
        #expect(pdus[1] == [0x01, 0x3F, 0x00, 0x00, 0x06])
        #expect(pdus[2] == [0x01, 0x02, 0x00, 0x00, 0x04])
        #expect(bearer.mtu == 247)
    }

    @Test func exchangesMTUAsClient() async throws {
        let (bearer, peer) = try makeBearer()
        let mtu = Task { try await bearer.exchangeMTU(185) }
        let pdus = await peer.waitForPDUs(1)
        #expect(pdus[0] == [0x02, 185, 0])
        try peer.send([0x03, 0x00, 0x01])  // server offers 256
        #expect(try await mtu.value == 185)
        #expect(bearer.mtu == 185)
    }

    @Test func confirmsIndicationsAndDeliversNotificationsInOrder() async throws {
        let (bearer, peer) = try makeBearer()
        let seen = ClosedBox()
        bearer.setNotificationHandler { handle, value, isIndication in
            seen.append("\(handle):\(Array(value)):\(isIndication)")
        }
        for index in 0..<50 { try peer.send([0x1B, 0x10, 0x00, UInt8(index)]) }
        try peer.send([0x1D, 0x11, 0x00, 0xAA])
        try peer.send([0x1B, 0x10])  // too short: dropped
        let pdus = await peer.waitForPDUs(1)
        #expect(pdus == [[0x1E]])
        try await Task.sleep(for: .milliseconds(20))
        #expect(seen.items == (0..<50).map { "16:[\($0)]:false" } + ["17:[170]:true"])
        #expect(bearer.droppedPDUCount == 1)
    }

    @Test func injectedDropLeadsToTimeoutAndTruncationToInvalidResponse() async throws {
        let (local, remote) = try SocketPairATTTransport.makePair()
        local.injectFaults(ATTFault.on(opcode: 0x0A, .drop))
        let bearer = ATTBearer(transport: local, clock: clock)
        try bearer.start()
        let peer = try RecordingPeer(remote)
        let value = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(peer.received.isEmpty)
        clock.advance(by: .seconds(31))
        await #expect(throws: GATTError.transactionTimeout(request: 0x0A)) { try await value.value }
    }
}

/// Polls `condition` for up to two seconds.
/// Waits until `condition` holds; the generous bound catches a hang, not a slow machine.
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
func startedBearer(clock: ManualATTClock) throws -> (ATTBearer, RecordingPeer) {
    let (local, remote) = try SocketPairATTTransport.makePair()
    let bearer = ATTBearer(transport: local, clock: clock)
    try bearer.start()
    return (bearer, try RecordingPeer(remote))
}
