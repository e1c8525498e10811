import BLETesting
import Synchronization
import Testing

@testable import Coordination

/// The manual clock: time moves only when the test says, wakes and sleeps end in deadline order,
/// the wall clock can be set without moving monotonic time, and a cancelled sleep leaves nothing behind.
@Suite struct ManualClockTests {
    /// Set from any thread, read from the test.
    final class Flag: Sendable {
        private let value = Atomic(false)
        func raise() { value.store(true, ordering: .relaxed) }
        var isRaised: Bool { value.load(ordering: .relaxed) }
    }

    @Test func wakesRunInDeadlineOrderOnlyOnceTheirTimeIsPassed() {
        let clock = ManualClock()
        let order = Mutex<[Int]>([])
        clock.wake(at: .seconds(30)) { order.withLock { $0.append(30) } }
        clock.wake(at: .seconds(10)) { order.withLock { $0.append(10) } }
        clock.advance(by: .seconds(9))
        #expect(order.withLock { $0 }.isEmpty && clock.pendingDeadlines == [.seconds(10), .seconds(30)])
        clock.advance(to: .seconds(30))
        #expect(order.withLock { $0 } == [10, 30] && clock.pendingWakes == 0)
        // A deadline already passed runs at once.
        clock.wake(at: .seconds(1)) { order.withLock { $0.append(1) } }
        #expect(order.withLock { $0 } == [10, 30, 1])
    }

    @Test func aSleepEndsWhenTheClockPassesItsDeadline() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try #require(await eventually { clock.pendingWakes > 0 })
        clock.advance(by: .seconds(59))
        #expect(clock.pendingWakes == 1)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.now == .seconds(60) && clock.wallTime == 1_795_600_060)
    }

    @Test func aCancelledSleepThrowsAndLeavesNoWakeBehind() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        try #require(await eventually { clock.pendingWakes > 0 })
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.pendingWakes == 0)
    }

    @Test func settingTheWallClockMovesAWallTimeSleepButNotAMonotonicOne() async throws {
        let clock = ManualClock(wallTime: 1_000)
        let slot = Task { try await clock.sleep(untilWallTime: 1_000 + 3_600) }
        let backoff = Task { try await clock.sleep(for: .seconds(600)) }
        try #require(await eventually { clock.pendingWakes >= 2 })
        // An hour forward: the slot has come; the backoff still has its ten minutes to go.
        clock.setWallTime(1_000 + 3_600)
        try await slot.value
        #expect(clock.now == .zero && clock.pendingDeadlines == [.seconds(600)])
        // Set back a day and a new slot an hour away is a day and an hour away in monotonic time.
        clock.setWallTime(1_000 - 86_400)
        let next = Task { try await clock.sleep(untilWallTime: 1_000 + 3_600) }
        try #require(await eventually { clock.pendingWakes >= 2 })
        #expect(clock.pendingDeadlines == [.seconds(600), .seconds(86_400 + 3_600)])
        clock.advance(by: .seconds(600))
        try await backoff.value
        next.cancel()
        await #expect(throws: CancellationError.self) { try await next.value }
    }

    @Test func aClockThatSkipsIdleTimeMovesToEachSleepsDeadlineAtOnce() async throws {
        let clock = ManualClock(wallTime: 0, skipsIdleTime: true)
        try await clock.sleep(for: .seconds(600))
        clock.block(until: .seconds(900)) { false }
        #expect(clock.now == .seconds(900) && clock.wallTime == 900)
        // Wakes still wait to be passed: a timeout armed beside the run does not fire by itself.
        let fired = Flag()
        clock.wake(at: .seconds(930)) { fired.raise() }
        #expect(!fired.isRaised)
        clock.block(until: .seconds(930)) { false }
        #expect(fired.isRaised)
    }

    @Test func aBlockedThreadEndsAtItsDeadlineOrWhenCancelled() async throws {
        let clock = ManualClock()
        let cancelled = Flag()
        let blocked = Task.detached { clock.block(until: .seconds(5)) { cancelled.isRaised } }
        try #require(await eventually { clock.pendingWakes > 0 })
        clock.advance(by: .seconds(5))
        await blocked.value
        let second = Task.detached { clock.block(until: .seconds(50)) { cancelled.isRaised } }
        try #require(await eventually { clock.pendingWakes > 0 })
        cancelled.raise()
        await second.value
        #expect(clock.now == .seconds(5))
    }
}
