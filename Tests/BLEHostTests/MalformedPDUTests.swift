import BLEHost
import BLETesting
import BLEWire
import Coordination
import Synchronization
import Testing

/// A misbehaving peer: short, malformed and unknown PDUs are answered with the right Error Response
/// or dropped, and never crash or wedge either side.
@Suite struct MalformedPDUTests {
    /// A server on one end of a socketpair and a raw peer on the other, playing the client.
    func makeServer() async throws -> (GATTFixture, RecordingPeer) {
        let (serverEnd, peerEnd) = try SocketPairATTTransport.makePair()
        let link = try await GATTFixture.make(mtu: 23)
        let bearer = ATTBearer(transport: serverEnd, clock: ManualClock())
        _ = GATTServer(database: link.database, bearer: bearer)
        try bearer.start()
        return (link, try RecordingPeer(peerEnd))
    }

    @Test func serverAnswersEveryMalformedRequestWithTheRightError() async throws {
        let (link, peer) = try await makeServer()
        let tx = link.handle(GATTFixture.tx)
        let long = link.handle(GATTFixture.long)
        let cases: [(pdu: [UInt8], answer: [UInt8])] = [
            ([0x0A], [0x01, 0x0A, 0x00, 0x00, 0x04]),  // Read without a handle: Invalid PDU
            ([0x0A, 0x01, 0x00, 0x00], [0x01, 0x0A, 0x00, 0x00, 0x04]),  // trailing byte
            ([0x04, 0x01], [0x01, 0x04, 0x00, 0x00, 0x04]),
            ([0x04, 0x00, 0x00, 0xFF, 0xFF], [0x01, 0x04, 0x00, 0x00, 0x01]),  // start 0: Invalid Handle
            ([0x04, 0x05, 0x00, 0x04, 0x00], [0x01, 0x04, 0x05, 0x00, 0x01]),  // start > end
            ([0x04, 0x00, 0x10, 0xFF, 0xFF], [0x01, 0x04, 0x00, 0x10, 0x0A]),  // nothing there
            ([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03], [0x01, 0x08, 0x00, 0x00, 0x04]),  // 1-byte UUID
            ([0x10, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], [0x01, 0x10, 0x01, 0x00, 0x10]),  // not a group type
            (
                [0x0C, UInt8(long & 0xFF), UInt8(long >> 8), 0x2D, 0x01],
                [0x01, 0x0C, UInt8(long & 0xFF), UInt8(long >> 8), 0x07]
            ),
            ([0x0E, 0x01, 0x00], [0x01, 0x0E, 0x00, 0x00, 0x04]),  // Read Multiple of one handle
            ([0x18, 0x02], [0x01, 0x18, 0x00, 0x00, 0x04]),  // Execute Write with bad flags
            ([0x12, 0x00], [0x01, 0x12, 0x00, 0x00, 0x04]),
            ([0x30, 0x01, 0x02], [0x01, 0x30, 0x00, 0x00, 0x06]),  // unknown request: Request Not Supported
            ([0x3E], [0x01, 0x3E, 0x00, 0x00, 0x06]),
            ([0x0A, UInt8(tx & 0xFF), UInt8(tx >> 8)], [0x01, 0x0A, UInt8(tx & 0xFF), UInt8(tx >> 8), 0x02]),
        ]
        for (index, test) in cases.enumerated() {
            try peer.send(test.pdu)
            let received = await peer.waitForPDUs(index + 1)
            #expect(received.count == index + 1 && received[index] == test.answer, "PDU \(test.pdu)")
        }
        // Commands, stray responses, notifications and confirmations get no answer; the next request does.
        for pdu: [UInt8] in [[0x52], [0x52, 0x01], [0xD2, 0x01, 0x00], [0x7F], [0x0B, 0x01], [0x1B], [0x1E], [0x01]] {
            try peer.send(pdu)
        }
        try peer.send([0x0A, UInt8(long & 0xFF), UInt8(long >> 8)])
        let received = await peer.waitForPDUs(cases.count + 1)
        #expect(received.count == cases.count + 1)
        #expect(received.last == [0x0B] + Array(GATTFixture.longValue.prefix(22)))
    }

    @Test func serverSurvivesRandomPDUs() async throws {
        let (link, peer) = try await makeServer()
        var generator = SplitMix64(seed: 0x5EED)
        var requests = 0
        for _ in 0..<3000 {
            let length = Int(generator.next() % 12)
            var pdu = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if let first = pdu.first {
                // Mostly known request opcodes with random bodies; keep the Exchange MTU out (once only).
                let opcodes: [UInt8] = [0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20, 0x52, first]
                pdu[0] = opcodes[Int(generator.next() % UInt64(opcodes.count))]
                if pdu[0] == 0x02 || pdu[0] == 0x18 && pdu.count == 2 && pdu[1] == 1 { pdu[0] = 0x0A }
            } else {
                continue
            }
            let kind = ATTOpcode(rawValue: pdu[0])?.kind
            let isRequest = pdu[0] & 0x40 == 0 && (kind == .request || kind == nil)
            // Requests are answered; so is a well-formed indication, with a confirmation.
            if isRequest || pdu[0] == 0x1D && pdu.count >= 3 { requests += 1 }
            try peer.send(pdu)
        }
        // A last, well-formed Read Request: the server answers in order, so once its answer is in, any
        // answer too many to the random PDUs would be in before it.
        try peer.send([0x0A, 0x01, 0x00])
        let answers = await peer.waitForPDUs(requests + 1)
        #expect(answers.last?.first == 0x0B, "the last answer is the marker's Read Response")
        #expect(peer.received.count == requests + 1, "exactly one answer per request")
        #expect(peer.closeReason == nil)
        #expect(link.database.count > 0)
    }

    @Test func clientRejectsMalformedResponsesAndSurvives() async throws {
        let (clientEnd, peerEnd) = try SocketPairATTTransport.makePair()
        let bearer = ATTBearer(transport: clientEnd, clock: ManualClock())
        let client = GATTClient(bearer: bearer)
        try bearer.start()
        let peer = try RecordingPeer(peerEnd)
        let discovery = Task { try await client.discoverPrimaryServices() }
        _ = await peer.waitForPDUs(1)
        try peer.send([0x11, 0x06, 0x01, 0x00])  // Read By Group Type Response cut short
        await #expect(throws: GATTError.self) { try await discovery.value }
        let read = Task { try await client.read(3) }
        _ = await peer.waitForPDUs(2)
        try peer.send([0x1B])  // a notification without a handle: dropped
        try peer.send([0x1D, 0x01])  // an indication without a handle: dropped, not confirmed
        try peer.send([0x23, 0x01, 0x00, 0x09, 0x00, 0x01])  // multiple notification with a bad length
        try peer.send([0x0B, 0x99])
        #expect(try await read.value == [0x99])
        #expect(bearer.droppedPDUCount == 3)
        #expect(peer.received.count == 2, "nothing confirmed or answered for the dropped PDUs")
    }

    /// A Read By Group Type Response of 32 bytes while this side's ATT_MTU is 23: refused on a link
    /// this side alone uses, accepted on one shared with another ATT client (bluetoothd on the kernel
    /// path had exchanged 517 on the connection first), with the notification of the same length.
    @Test(arguments: [false, true])
    func responsesLongerThanOurMTUAreTrustedOnlyOnASharedLink(shared: Bool) async throws {
        let (clientEnd, peerEnd) = try SocketPairATTTransport.makePair()
        clientEnd.sharesLink = shared
        let bearer = ATTBearer(transport: clientEnd, preferredMTU: 23, clock: ManualClock())
        let client = GATTClient(bearer: bearer)
        let notified = Mutex(0)
        bearer.setNotificationHandler { _, value, _ in notified.withLock { $0 = value.count } }
        try bearer.start()
        let peer = try RecordingPeer(peerEnd)
        let discovery = Task { try await client.discoverPrimaryServices() }
        _ = await peer.waitForPDUs(1)
        // Two 128-bit services in one response: 2 + 2 × 20 = 42 bytes > 23.
        var response: [UInt8] = [0x11, 20]
        for start: UInt8 in [1, 8] {
            response += [start, 0, start + 6, 0] + [UInt8](repeating: start, count: 16)
        }
        try peer.send(response)
        try peer.send([0x1B, 0x10, 0x00] + [UInt8](repeating: 7, count: 40))
        if shared {
            // The next request asks for what follows the last group; the peer ends the discovery.
            _ = await peer.waitForPDUs(2)
            try peer.send([0x01, 0x10, 0x0F, 0x00, 0x0A])
            #expect(try await discovery.value.count == 2)
            #expect(await eventually { notified.withLock { $0 } == 40 })
            #expect(bearer.droppedPDUCount == 0)
        } else {
            await #expect(throws: GATTError.self) { try await discovery.value }
            #expect(await eventually { bearer.droppedPDUCount == 1 }, "the notification too")
        }
        #expect(bearer.mtu == 23)
    }
}

/// A small deterministic generator for fuzz inputs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
