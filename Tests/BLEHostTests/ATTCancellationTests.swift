import BLEHost
import BLETesting
import Coordination
import Synchronization
import Testing

/// Cancelling a request's task ends the wait at once without confusing the next request: ATT has no
/// transaction ids, so a request already on the air keeps the slot until its (discarded) response.
/// On an `EmbeddedATTTransport` and a manual clock: each check is made in the state where what it rules
/// out could have happened.
@Suite struct ATTCancellationTests {
    let clock = ManualClock()

    func makeBearer() throws -> (ATTBearer, EmbeddedATTTransport) { try embeddedBearer(clock: clock) }

    @Test func aCancelledRequestInFlightEndsAtOnceAndItsLateResponseIsDiscarded() async throws {
        let (bearer, link) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x03, 0x00]) }
        #expect(await eventually { link.outbound.count == 1 })
        first.cancel()
        await #expect(throws: GATTError.cancelled) { try await first.value }
        let second = Task { try await bearer.request([0x0A, 0x05, 0x00]) }
        // The second request waits behind the first, whose response is still owed.
        #expect(await eventually { bearer.waitingRequestCount == 1 })
        #expect(link.outbound.count == 1)
        link.deliver([0x0B, 0xAA])  // the late response to the cancelled request
        #expect(link.outbound.count == 2 && link.outbound[1] == [0x0A, 0x05, 0x00])
        link.deliver([0x0B, 0xBB])
        #expect(try await second.value == [0x0B, 0xBB])
        #expect(bearer.closeReason == nil)
    }

    @Test func aCancelledQueuedRequestIsNeverSent() async throws {
        let (bearer, link) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        #expect(await eventually { link.outbound.count == 1 })
        let queued = Task { try await bearer.request([0x0A, 0x02, 0x00]) }
        #expect(await eventually { bearer.waitingRequestCount == 1 })
        queued.cancel()
        await #expect(throws: GATTError.cancelled) { try await queued.value }
        #expect(bearer.waitingRequestCount == 0)
        let third = Task { try await bearer.request([0x0A, 0x03, 0x00]) }
        #expect(await eventually { bearer.waitingRequestCount == 1 })
        link.deliver([0x0B, 0x11])
        #expect(try await first.value == [0x0B, 0x11])
        #expect(link.outbound.count == 2 && link.outbound[1] == [0x0A, 0x03, 0x00], "the cancelled one is never sent")
        link.deliver([0x0B, 0x33])
        #expect(try await third.value == [0x0B, 0x33])
    }

    @Test func anAlreadyCancelledTaskSendsNothing() async throws {
        let (bearer, link) = try makeBearer()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await bearer.request([0x0A, 0x01, 0x00])
        }
        await #expect(throws: GATTError.cancelled) { try await task.value }
        #expect(link.outbound.isEmpty, "sent synchronously if at all: the task has ended")
    }

    @Test func aCancelledIndicationEndsAtOnceAndTheNextWaitsForItsConfirmation() async throws {
        let (bearer, link) = try makeBearer()
        let ended = Mutex<Result<Void, GATTError>?>(nil)
        let first = Task {
            do throws(GATTError) {
                try await bearer.indicate(handle: 0x0011, value: [0x01])
                ended.withLock { $0 = .success(()) }
            } catch {
                ended.withLock { $0 = .failure(error) }
            }
        }
        #expect(await eventually { link.outbound.count == 1 })
        first.cancel()
        // Bounded: without the cancellation the wait would last until a confirmation that never comes.
        #expect(await eventually { ended.withLock { $0 } != nil })
        #expect(ended.withLock { $0.map { if case .failure(.cancelled) = $0 { true } else { false } } } == true)
        let second = Task { try await bearer.indicate(handle: 0x0011, value: [0x02]) }
        // One indication at a time: the second waits for the first one's confirmation, still owed.
        #expect(await eventually { bearer.waitingIndicationCount == 1 })
        #expect(link.outbound.count == 1)
        link.deliver([0x1E])  // the late confirmation of the cancelled indication
        #expect(link.outbound.count == 2 && link.outbound[1] == [0x1D, 0x11, 0x00, 0x02])
        link.deliver([0x1E])
        try await second.value
        #expect(bearer.closeReason == nil)
    }

    @Test func aCancelledRequestStillTimesOutOnTheWire() async throws {
        let (bearer, link) = try makeBearer()
        let first = Task { try await bearer.request([0x0A, 0x01, 0x00]) }
        #expect(await eventually { link.outbound.count == 1 })
        first.cancel()
        _ = try? await first.value
        clock.advance(by: .seconds(31))
        #expect(bearer.closeReason == .transactionTimeout(request: 0x0A))
    }
}
