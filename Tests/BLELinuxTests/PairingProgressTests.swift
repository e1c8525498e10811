import BLETesting
import Coordination
import Synchronization
import Testing

@testable import BLELinux

/// The wait behind `pair` and the kernel path's close: the kernel reports a pairing's keys after the link
/// is already encrypted, so the waiter must wake on the key (not on its timeout), give up at its timeout,
/// and end at once when cancelled. The timeouts run on a manual clock that moves only when told.
@Suite struct PairingProgressTests {
    static let timeout: Duration = .seconds(10)

    /// A wait started on its own task; `ended` is what it returned, nil while it waits.
    final class Waiting: Sendable {
        private let result = Mutex<PairingProgress.Snapshot?>(nil)
        var ended: PairingProgress.Snapshot? { result.withLock { $0 } }

        init(
            _ progress: PairingProgress,
            cancelledFirst: Bool = false,
            until condition: @escaping @Sendable (PairingProgress.Snapshot) -> Bool
        ) {
            Task {
                if cancelledFirst { withUnsafeCurrentTask { $0?.cancel() } }
                let seen = await progress.wait(upTo: PairingProgressTests.timeout, until: condition)
                result.withLock { $0 = seen }
            }
        }

        /// Whether the wait ended without the clock reaching its timeout. Either way the clock is then
        /// moved past the timeout, so that a wait that missed its event ends the test instead of hanging it.
        func endsOnItsOwn(_ clock: ManualClock) async -> Bool {
            let onItsOwn = await eventually { self.ended != nil }
            clock.advance(by: PairingProgressTests.timeout)
            _ = await eventually { self.ended != nil }
            return onItsOwn
        }
    }

    @Test func aKeyReportedAfterTheWaitBeganWakesIt() async {
        let clock = ManualClock()
        let progress = PairingProgress(clock: clock)
        progress.answered()
        let waiting = Waiting(progress) { $0.keys > 0 }
        #expect(await eventually { progress.isWaiting })
        progress.keyArrived()
        #expect(await waiting.endsOnItsOwn(clock))
        #expect(waiting.ended == PairingProgress.Snapshot(keys: 1, failures: 0, underWay: false))
    }

    @Test func anEventThatDoesNotMeetTheConditionLeavesTheWaiterParked() async {
        let clock = ManualClock()
        let progress = PairingProgress(clock: clock)
        let waiting = Waiting(progress) { $0.keys > 0 || $0.failures > 0 }
        #expect(await eventually { progress.isWaiting })
        progress.answered()
        #expect(progress.isWaiting)
        progress.failed()
        #expect(await waiting.endsOnItsOwn(clock))
        let seen = waiting.ended
        #expect(seen?.failures == 1 && seen?.keys == 0 && seen?.underWay == false)
    }

    @Test func aConditionAlreadyMetReturnsAtOnce() async {
        let clock = ManualClock()
        let progress = PairingProgress(clock: clock)
        progress.keyArrived()
        let seen = await progress.wait(upTo: Self.timeout) { $0.keys > 0 }
        #expect(seen.keys == 1)
        #expect(!progress.isWaiting)
        // Nothing under way: settling does not wait.
        #expect(await progress.wait(upTo: Self.timeout) { !$0.underWay }.underWay == false)
        #expect(clock.pendingWakes == 0, "a wait that returns at once asks for no wake")
    }

    @Test func withoutAnEventTheWaitEndsAtItsTimeout() async {
        let clock = ManualClock()
        let progress = PairingProgress(clock: clock)
        progress.answered()
        let waiting = Waiting(progress) { !$0.underWay }
        #expect(await eventually { progress.isWaiting })
        clock.advance(by: Self.timeout - .milliseconds(1))
        #expect(progress.isWaiting, "not before its timeout")
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { waiting.ended != nil })
        #expect(waiting.ended?.underWay == true)
        #expect(!progress.isWaiting)
    }

    @Test func cancellingTheWaiterEndsTheWait() async {
        let clock = ManualClock()
        let progress = PairingProgress(clock: clock)
        let task = Task { await progress.wait(upTo: Self.timeout) { $0.keys > 0 } }
        #expect(await eventually { progress.isWaiting })
        task.cancel()
        #expect(await eventually { !progress.isWaiting }, "ended by the cancellation, the clock never moved")
        clock.advance(by: Self.timeout)
        #expect(await task.value.keys == 0)
    }

    @Test func aWaiterCancelledBeforeItWaitsReturnsAtOnce() async {
        let clock = ManualClock()
        let progress = PairingProgress(clock: clock)
        let waiting = Waiting(progress, cancelledFirst: true) { $0.keys > 0 }
        #expect(await waiting.endsOnItsOwn(clock))
        #expect(waiting.ended?.keys == 0)
    }
}
