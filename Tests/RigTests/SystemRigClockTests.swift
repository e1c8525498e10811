import Synchronization
import Testing

@testable import RigCore

/// The system clock: a wait until a time follows the wall clock, so a clock set forward or back moves
/// the wake-up; a wait for a while does not.
@Suite struct SystemRigClockTests {
    @Test func aWallClockSetForwardPastTheDeadlineEndsTheSleepWithinAStep() async throws {
        let wall = Mutex(1_000.0)
        let reads = Atomic(0)
        // The wall clock stands still for ten reads, then is set an hour forward.
        let pauses = Mutex<[Duration]>([])
        let clock = SystemRigClock(
            step: .milliseconds(5),
            wall: {
                if reads.add(1, ordering: .relaxed).newValue == 10 { wall.withLock { $0 += 3_600 } }
                return wall.withLock { $0 }
            },
            pause: { duration in pauses.withLock { $0.append(duration) } }
        )
        try await clock.sleep(until: 1_000 + 1_800)
        #expect(reads.load(ordering: .relaxed) == 10)
        // Nine waits of one step each, none of them the 30 min left on the monotonic clock.
        #expect(pauses.withLock { $0 } == Array(repeating: .milliseconds(5), count: 9))
    }

    @Test func aWallClockSetBackKeepsSleepingUntilItReachesTheDeadline() async throws {
        let wall = Mutex(1_000.0)
        let reads = Atomic(0)
        // Each read moves the wall clock 1 s on, except the third, which sets it 10 s back.
        let clock = SystemRigClock(step: .milliseconds(1)) {
            let read = reads.add(1, ordering: .relaxed).newValue
            return wall.withLock { time in
                time += read == 3 ? -10 : 1
                return time
            }
        }
        try await clock.sleep(until: 1_005)
        // 1001, 1002, 992, then one read a step up to 1005: 16 reads.
        #expect(reads.load(ordering: .relaxed) == 16)
    }

    @Test func anElapsedSleepReadsTheWallClockOnceAndThenIgnoresIt() async throws {
        let reads = Atomic(0)
        // 1000 at the first read, then an hour later at every read after it.
        let pauses = Mutex<[Duration]>([])
        let clock = SystemRigClock(
            step: .milliseconds(1),
            wall: { 1_000 + Double(reads.add(1, ordering: .relaxed).newValue - 1) * 3_600 },
            pause: { duration in pauses.withLock { $0.append(duration) } }
        )
        try await clock.sleep(elapsedUntil: 1_000.05)
        #expect(pauses.withLock { $0 }.count == 1)
        let pause = try #require(pauses.withLock { $0 }.first)
        #expect(abs(Double(pause.components.attoseconds) / 1e18 - 0.05) < 1e-9 && pause.components.seconds == 0)
        #expect(reads.load(ordering: .relaxed) == 1)
    }
}
