import Coordination
import Synchronization
import Testing

@Suite struct LatchTests {
    @Test func theFirstValueGivenIsTheOneEveryWaiterGets() async {
        let latch = Latch<Int>()
        #expect(latch.value == nil)
        async let early = latch.wait()
        // Let the early waiter start waiting before the value is given.
        try? await Task.sleep(for: .milliseconds(20))
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
    @Test func theGateIsHeldByOneAtATimeInOrder() async {
        let gate = AsyncGate()
        let order = Order()
        await gate.acquire()
        await withTaskGroup(of: Void.self) { group in
            for index in 1...3 {
                group.addTask {
                    await gate.acquire()
                    order.served.withLock { $0.append(index) }
                    gate.release()
                }
                // Each waiter queues before the next is added.
                try? await Task.sleep(for: .milliseconds(20))
            }
            #expect(order.served.withLock { $0 }.isEmpty)
            gate.release()
        }
        #expect(order.served.withLock { $0 } == [1, 2, 3])
    }
}
