import BLEHost
import BLETesting
import Testing

/// Cancelling a request's task ends the wait at once without confusing the next request: ATT has no
/// transaction ids, so a request already on the air keeps the slot until its (discarded) response.
@Suite struct ATTCancellationTests {
    let clock = ManualATTClock()

    func makeBearer() throws -> (ATTBearer, RecordingPeer) { try startedBearer(clock: clock) }

    @Test func aCancelledRequestInFlightEndsAtOnceAndItsLateResponseIsDiscarded() async throws {
        let (bearer, peer) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x03, 0x00]) }
        _ = await peer.waitForPDUs(1)
        first.cancel()
        await #expect(throws: GATTError.cancelled) { try await first.value }
        let second = Task { try await bearer.request([0x0A, 0x05, 0x00]) }
        // The second request waits behind the first, whose response is still owed.
        try await Task.sleep(for: .milliseconds(30))
        #expect(peer.received.count == 1)
        try peer.send([0x0B, 0xAA])  // the late response to the cancelled request
        let all = await peer.waitForPDUs(2)
        #expect(all[1] == [0x0A, 0x05, 0x00])
        try peer.send([0x0B, 0xBB])
        #expect(try await second.value == [0x0B, 0xBB])
        #expect(bearer.closeReason == nil)
    }

    @Test func aCancelledQueuedRequestIsNeverSent() async throws {
        let (bearer, peer) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        _ = await peer.waitForPDUs(1)
        let queued = Task { try await bearer.request([0x0A, 0x02, 0x00]) }
        try await Task.sleep(for: .milliseconds(20))
        queued.cancel()
        await #expect(throws: GATTError.cancelled) { try await queued.value }
        let third = Task { try await bearer.request([0x0A, 0x03, 0x00]) }
        try peer.send([0x0B, 0x11])
        #expect(try await first.value == [0x0B, 0x11])
        let all = await peer.waitForPDUs(2)
        #expect(all[1] == [0x0A, 0x03, 0x00], "the cancelled request must not be sent")
        try peer.send([0x0B, 0x33])
        #expect(try await third.value == [0x0B, 0x33])
    }

    @Test func anAlreadyCancelledTaskSendsNothing() async throws {
        let (bearer, peer) = try makeBearer()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await bearer.request([0x0A, 0x01, 0x00])
        }
        await #expect(throws: GATTError.cancelled) { try await task.value }
        try await Task.sleep(for: .milliseconds(20))
        #expect(peer.received.isEmpty)
    }

    @Test func aCancelledRequestStillTimesOutOnTheWire() async throws {
        let (bearer, peer) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        _ = await peer.waitForPDUs(1)
        first.cancel()
        _ = try? await first.value
        clock.advance(by: .seconds(31))
        #expect(await eventually(.seconds(30)) { bearer.closeReason == .transactionTimeout(request: 0x0A) })
    }
}
