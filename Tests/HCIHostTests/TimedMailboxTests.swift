import BLETesting
import Coordination
import Testing

@testable import BLEHost

/// The security inbox's bounded wait: an item that came first is taken at once, a wait ends with nil
/// when its time runs out, also when the clock wakes before the waiter is in place.
@Suite("TimedMailbox")
struct TimedMailboxTests {
    @Test("a wait whose time has already run out ends with nil instead of parking", .timeLimit(.minutes(2)))
    func expiredBeforeWaiting() async {
        // The manual clock runs a wake whose deadline is not in the future at once, inside `next`,
        // before the waiter is installed.
        let mailbox = TimedMailbox<Int>(clock: ManualClock())
        #expect(await mailbox.next(timeout: .zero) == nil)
        // The mailbox still works after such a wait.
        mailbox.push(7)
        #expect(await mailbox.next(timeout: .zero) == 7)
        #expect(await mailbox.next(timeout: .zero) == nil)
    }

    @Test("a waiter gets the next item, or nil once its time runs out", .timeLimit(.minutes(2)))
    func waitsUntilAnItemOrTheDeadline() async {
        let clock = ManualClock()
        let mailbox = TimedMailbox<Int>(clock: clock)
        async let first = mailbox.next(timeout: .seconds(5))
        #expect(await eventually(.seconds(10)) { clock.pendingWakes == 1 })
        mailbox.push(1)
        #expect(await first == 1)
        async let second = mailbox.next(timeout: .seconds(5))
        #expect(await eventually(.seconds(10)) { clock.pendingWakes == 2 })
        clock.advance(by: .seconds(4))
        mailbox.push(2)
        #expect(await second == 2)
        async let third = mailbox.next(timeout: .seconds(5))
        #expect(await eventually(.seconds(10)) { clock.pendingWakes == 3 })
        clock.advance(by: .seconds(6))
        #expect(await third == nil)
    }

    @Test("the oldest items go when more than the limit wait")
    func dropsTheOldestBeyondTheLimit() async {
        let mailbox = TimedMailbox<Int>(limit: 2, clock: ManualClock())
        for item in 1...3 { mailbox.push(item) }
        #expect(await mailbox.next(timeout: .zero) == 2)
        #expect(await mailbox.next(timeout: .zero) == 3)
    }
}
