import Glibc
import Synchronization
import Testing

@testable import BLELinux

@Suite struct PollTests {
    @Test func interruptedWaitGoesOnWithTheTimeLeft() throws {
        // poll is interrupted once after about 30 ms, then times out.
        let calls = Mutex(0)
        let kernel: @Sendable (MockCall) -> MockReply = { _ in
            let first = calls.withLock { count in
                count += 1
                return count == 1
            }
            if first {
                usleep(30_000)
                return .failure(EINTR)
            }
            return MockReply(result: 0)
        }
        let outcome = try MockingDriver.withMocking(kernel) { driver in
            let outcome = try Poll.wait(fd: 900, events: Int16(POLLOUT), cancel: nil, timeout: .milliseconds(100))
            let timeouts = driver.trace.map { $0.arguments.last ?? -2 }
            #expect(timeouts.count == 2)
            #expect(timeouts.first.map { (90...100).contains($0) } == true, "\(timeouts)")
            #expect(timeouts.last.map { (0...75).contains($0) } == true, "the retry waits what is left: \(timeouts)")
            return outcome
        }
        #expect(outcome == .timedOut)
    }

    @Test func noTimeoutWaitsForever() throws {
        try MockingDriver.withMocking({ _ in MockReply(result: 0) }) { driver in
            _ = try Poll.wait(fd: 900, events: Int16(POLLIN), cancel: nil, timeout: nil)
            #expect(driver.trace.first?.arguments.last == -1)
        }
    }

    @Test func millisecondsRoundUp() {
        let clock = ContinuousClock()
        let now = clock.now
        #expect(Poll.milliseconds(until: now.advanced(by: .seconds(-1)), clock) == 0)
        let soon = Poll.milliseconds(until: clock.now.advanced(by: .microseconds(1500)), clock)
        #expect(soon == 2 || soon == 1)
    }
}
