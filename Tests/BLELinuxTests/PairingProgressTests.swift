import BLETesting
import Testing

@testable import BLELinux

/// The wait behind `pair` and the kernel path's close: the kernel reports a pairing's keys after the link
/// is already encrypted, so the waiter must wake on the key (not on its timer), give up after its
/// timeout, and end at once when cancelled.
@Suite struct PairingProgressTests {
    /// Long enough that a wait woken by its timer instead of its event fails the elapsed-time check.
    static let long: Duration = .seconds(60)

    @Test func aKeyReportedAfterTheWaitBeganWakesIt() async {
        let progress = PairingProgress()
        progress.answered()
        let start = ContinuousClock.now
        let waiting = Task { await progress.wait(upTo: Self.long) { $0.keys > 0 } }
        #expect(await eventually { progress.isWaiting })
        progress.keyArrived()
        let seen = await waiting.value
        #expect(seen == PairingProgress.Snapshot(keys: 1, failures: 0, underWay: false))
        #expect(ContinuousClock.now - start < Self.long / 2)
    }

    @Test func anEventThatDoesNotMeetTheConditionLeavesTheWaiterParked() async {
        let progress = PairingProgress()
        let start = ContinuousClock.now
        let waiting = Task { await progress.wait(upTo: Self.long) { $0.keys > 0 || $0.failures > 0 } }
        #expect(await eventually { progress.isWaiting })
        progress.answered()
        #expect(progress.isWaiting)
        progress.failed()
        let seen = await waiting.value
        #expect(seen.failures == 1 && seen.keys == 0 && !seen.underWay)
        #expect(ContinuousClock.now - start < Self.long / 2)
    }

    @Test func aConditionAlreadyMetReturnsAtOnce() async {
        let progress = PairingProgress()
        progress.keyArrived()
        let seen = await progress.wait(upTo: Self.long) { $0.keys > 0 }
        #expect(seen.keys == 1)
        #expect(!progress.isWaiting)
        // Nothing under way: settling does not wait.
        #expect(await progress.wait(upTo: Self.long) { !$0.underWay }.underWay == false)
    }

    @Test func withoutAnEventTheWaitEndsAtItsTimeout() async {
        let progress = PairingProgress()
        progress.answered()
        let seen = await progress.wait(upTo: .milliseconds(20)) { !$0.underWay }
        #expect(seen.underWay)
        #expect(!progress.isWaiting)
    }

    @Test func cancellingTheWaiterEndsTheWait() async {
        let progress = PairingProgress()
        let start = ContinuousClock.now
        let waiting = Task { await progress.wait(upTo: Self.long) { $0.keys > 0 } }
        #expect(await eventually { progress.isWaiting })
        waiting.cancel()
        #expect(await waiting.value.keys == 0)
        #expect(ContinuousClock.now - start < Self.long / 2)
    }

    @Test func aWaiterCancelledBeforeItWaitsReturnsAtOnce() async {
        let progress = PairingProgress()
        let start = ContinuousClock.now
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await progress.wait(upTo: Self.long) { $0.keys > 0 }
        }
        #expect(await waiting.value.keys == 0)
        #expect(ContinuousClock.now - start < Self.long / 2)
    }
}
