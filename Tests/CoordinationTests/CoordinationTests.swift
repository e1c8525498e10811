import BLETesting
import Coordination
import Synchronization
import Testing

@Suite struct LatchTests {
    @Test func theFirstValueGivenIsTheOneEveryWaiterGets() async throws {
        let latch = Latch<Int>()
        #expect(latch.value == nil)
        async let early = latch.wait()
        // The early waiter waits before the value is given.
        try #require(await eventually { latch.waiting == 1 })
        #expect(latch.settle(1))
        #expect(!latch.settle(2))
        #expect(await early == 1)
        #expect(await latch.wait() == 1)
        #expect(latch.value == 1)
    }
}

@Suite struct AsyncGateTests {
    /// The order the holders got the gate in.
    final class Order: Sendable {
        let served = Mutex<[Int]>([])
    }

    /// One holder at a time, the waiters served in the order they came.
    @Test func theGateIsHeldByOneAtATimeInOrder() async throws {
        let gate = AsyncGate()
        let order = Order()
        await gate.acquire()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 1...3 {
                group.addTask {
                    await gate.acquire()
                    order.served.withLock { $0.append(index) }
                    gate.release()
                }
                // Each waiter queues before the next is added.
                try #require(await eventually { gate.waiting == index })
            }
            #expect(order.served.withLock { $0 }.isEmpty)
            gate.release()
        }
        #expect(order.served.withLock { $0 } == [1, 2, 3])
    }
}

/// The one bounded wait: a latch's value if it comes within the limit, else nil, on a manual clock.
@Suite struct LatchDeadlineTests {
    @Test func aValueGivenBeforeTheLimitIsReturned() async throws {
        let clock = ManualClock()
        let latch = Latch<Int>()
        let waiting = Task { await latch.wait(upTo: .seconds(20), on: clock) }
        try #require(await eventually { clock.pendingWakes > 0 })
        clock.advance(by: .seconds(19))
        latch.settle(7)
        #expect(await waiting.value == 7)
        // The wake the wait armed comes to nothing, and a settled latch needs no wait at all.
        clock.advance(by: .seconds(1))
        #expect(await latch.wait(upTo: .zero, on: clock) == 7)
    }

    @Test func theLimitPassingFirstEndsTheWaitWithNothing() async throws {
        let clock = ManualClock()
        let latch = Latch<Int>()
        let waiting = Task { await latch.wait(upTo: .seconds(20), on: clock) }
        try #require(await eventually { clock.pendingWakes > 0 })
        clock.advance(by: .seconds(20))
        #expect(await waiting.value == nil)
        // A value given later still reaches every later waiter.
        latch.settle(8)
        #expect(await latch.wait() == 8)
    }

    @Test func cancellingTheWaiterEndsTheWaitWithNothing() async throws {
        let clock = ManualClock()
        let latch = Latch<Int>()
        let waiting = Task { await latch.wait(upTo: .seconds(20), on: clock) }
        try #require(await eventually { clock.pendingWakes > 0 })
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(clock.now == .zero)
    }
}
