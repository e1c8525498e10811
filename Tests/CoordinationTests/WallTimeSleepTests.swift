import Synchronization
import Testing

@testable import Coordination

/// The default wait for a wall-clock time (the system clock's): steps on the monotonic clock, each
/// measured against the wall clock again, so a clock set forward or back moves the wake-up.
@Suite struct WallTimeSleepTests {
    /// A time source whose wall clock is a closure and whose sleeps return at once, recorded.
    final class SteppedClock: TimeSource {
        let wall: @Sendable () -> Double
        let pauses = Mutex<[Duration]>([])

        init(wall: @escaping @Sendable () -> Double) { self.wall = wall }

        var now: Duration { .zero }
        var wallTime: Double { wall() }
        func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void) { body() }
        func sleep(until deadline: Duration) async throws { pauses.withLock { $0.append(deadline) } }
    }

    @Test func aWallClockSetForwardPastTheTargetEndsTheSleepWithinAStep() async throws {
        let wall = Mutex(1_000.0)
        let reads = Atomic(0)
        // The wall clock stands still for ten reads, then is set an hour forward.
        let clock = SteppedClock {
            if reads.add(1, ordering: .relaxed).newValue == 10 { wall.withLock { $0 += 3_600 } }
            return wall.withLock { $0 }
        }
        try await clock.sleep(untilWallTime: 1_000 + 1_800, step: .milliseconds(5))
        #expect(reads.load(ordering: .relaxed) == 10)
        // Nine waits of one step each, none of them the 30 min left on the monotonic clock.
        #expect(clock.pauses.withLock { $0 } == Array(repeating: .milliseconds(5), count: 9))
    }

    @Test func aWallClockSetBackKeepsSleepingUntilItReachesTheTarget() async throws {
        let wall = Mutex(1_000.0)
        let reads = Atomic(0)
        // Each read moves the wall clock 1 s on, except the third, which sets it 10 s back.
        let clock = SteppedClock {
            let read = reads.add(1, ordering: .relaxed).newValue
            return wall.withLock { time in
                time += read == 3 ? -10 : 1
                return time
            }
        }
        try await clock.sleep(untilWallTime: 1_005, step: .seconds(60))
        // 1001, 1002, 992, then one read a step up to 1005: 16 reads.
        #expect(reads.load(ordering: .relaxed) == 16)
    }

    @Test func theSystemClockWaitsForAWallTimeJustPassedNotAtAll() async throws {
        let clock = SystemClock()
        let started = clock.now
        try await clock.sleep(untilWallTime: clock.wallTime + 0.02)
        #expect(clock.now - started >= .milliseconds(19))
        try await clock.sleep(untilWallTime: clock.wallTime - 10)
    }
}
