import RigService
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
