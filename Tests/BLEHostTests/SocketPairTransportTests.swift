import BLEHost
import BLETesting
import Testing

/// The in-memory transport: one PDU per message, and each injected fault does what it says.
@Suite struct SocketPairTransportTests {
    @Test func deliversWholePDUsInOrder() async throws {
        let (a, b) = try SocketPairATTTransport.makePair()
        let peer = try RecordingPeer(b)
        let pdus = (1...300).map { length in (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ length) } }
        for pdu in pdus { try a.send(pdu) }
        #expect(await peer.waitForPDUs(pdus.count) == pdus)
        #expect(throws: TransportError.pduTooLarge(length: 1025, limit: 1024)) {
            try a.send([UInt8](repeating: 0, count: 1025))
        }
    }

    @Test func appliesDropDelayCorruptAndTruncate() async throws {
        let (a, b) = try SocketPairATTTransport.makePair()
        let peer = try RecordingPeer(b)
        a.injectFaults { index, _ in
            switch index {
            case 1: .drop
            case 2: .delay(.milliseconds(30))
            case 3: .corrupt(offset: 1, mask: 0xFF)
            case 4: .truncate(length: 2)
            default: nil
            }
        }
        let start = ContinuousClock.now
        for index in 0..<6 { try a.send([UInt8(index), 0x0F, 0xAA]) }
        #expect(ContinuousClock.now - start >= .milliseconds(30))
        let received = await peer.waitForPDUs(5)
        #expect(received == [[0, 0x0F, 0xAA], [2, 0x0F, 0xAA], [3, 0xF0, 0xAA], [4, 0x0F], [5, 0x0F, 0xAA]])
        #expect(a.sentCount == 6)
    }

    @Test func disconnectsAfterNPDUsAndBothEndsSeeIt() async throws {
        let (a, b) = try SocketPairATTTransport.makePair()
        let peer = try RecordingPeer(b)
        let closed = ClosedBox()
        try a.start(receive: { _ in }, closed: { reason in closed.append("\(reason)") })
        a.injectFaults(ATTFault.disconnect(afterSending: 3))
        for index in 0..<3 { try a.send([UInt8(index)]) }
        #expect(throws: TransportError.disconnected(reason: nil)) { try a.send([9]) }
        _ = await peer.waitForPDUs(4, timeout: .seconds(2))  // returns once the link is down
        #expect(peer.received == [[0], [1], [2]])
        #expect(peer.closeReason == .disconnected(reason: nil))
        #expect(await eventually(.seconds(30)) { closed.items.count == 1 })
        a.close()  // returns once its reader has stopped: a second report would be in by now
        #expect(closed.items.count == 1, "closed is reported exactly once")
    }
}
