import BLETesting
import Coordination
import Testing

@testable import BLEHost

/// A response that arrives once the bearer is closed (a program that stops while a write waits for
/// its response: the reader had already read it) is expected, not reported as dropped; the same
/// response on an open bearer with nothing pending is.
@Suite struct LateResponseTests {
    @Test func aResponseAfterTheCloseIsNotReportedAsDropped() async throws {
        let (clientEnd, peerEnd) = try SocketPairATTTransport.makePair()
        let bearer = ATTBearer(transport: clientEnd, clock: ManualClock())
        let client = GATTClient(bearer: bearer)
        try bearer.start()
        let peer = try RecordingPeer(peerEnd)
        let read = Task { try await client.read(3) }
        _ = await peer.waitForPDUs(1)
        bearer.close()
        await #expect(throws: GATTError.self) { try await read.value }
        [UInt8]([0x0B, 0x99]).withUnsafeBytes { bearer.receive($0) }  // its Read Response, late
        #expect(bearer.droppedPDUCount == 0)
    }

    @Test func aResponseWithNothingPendingOnAnOpenBearerIsDropped() async throws {
        let (clientEnd, peerEnd) = try SocketPairATTTransport.makePair()
        let bearer = ATTBearer(transport: clientEnd, clock: ManualClock())
        try bearer.start()
        _ = try RecordingPeer(peerEnd)
        [UInt8]([0x0B, 0x99]).withUnsafeBytes { bearer.receive($0) }
        #expect(bearer.droppedPDUCount == 1)
        bearer.close()
    }
}
