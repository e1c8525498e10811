import BLEHost
import BLETesting
import Coordination
import Testing

/// `LinkEventWaiter`: the LE Meta event link tuning waits for, bounded by a wake of the host's clock.
@Suite struct LinkEventWaiterTests {
    /// LE Data Length Change (subevent 0x07) for `handle`: the handle, then four lengths and times.
    static func dataLengthChange(handle: UInt16) -> [UInt8] {
        [0x3E, 11, 0x07, UInt8(handle & 0xFF), UInt8(handle >> 8), 251, 0, 0x48, 0x08, 251, 0, 0x48, 0x08]
    }

    @Test func anEventOfferedBeforeTheWaitIsKept() async {
        let waiter = LinkEventWaiter(subevent: 0x07, handle: 0x0040)
        let other = Self.dataLengthChange(handle: 0x0041)
        #expect(!other.withUnsafeBytes { waiter.offer($0) }, "another link's event is not taken")
        let event = Self.dataLengthChange(handle: 0x0040)
        #expect(event.withUnsafeBytes { waiter.offer($0) })
        #expect(await waiter.wait(timeout: .seconds(2), clock: ManualClock()) == event)
    }

    @Test func noEventEndsTheWaitWhenTheClockReachesTheTimeoutAndNotBefore() async {
        let clock = ManualClock()
        let waiter = LinkEventWaiter(subevent: 0x07, handle: 0x0040)
        let waiting = Task { await waiter.wait(timeout: .seconds(2), clock: clock) }
        #expect(await eventually { clock.pendingDeadlines == [.seconds(2)] })
        clock.advance(by: .milliseconds(1_999))
        #expect(clock.pendingWakes == 1, "not before its time: nothing else ends the wait")
        clock.advance(by: .milliseconds(1))
        #expect(await waiting.value == nil)
        let late = Self.dataLengthChange(handle: 0x0040)
        #expect(!late.withUnsafeBytes { waiter.offer($0) }, "a finished waiter takes nothing")
    }

    @Test func anEventEndsTheWaitAndTheTimeoutsWakeLaterDoesNothing() async {
        let clock = ManualClock()
        let waiter = LinkEventWaiter(subevent: 0x07, handle: 0x0040)
        let waiting = Task { await waiter.wait(timeout: .seconds(2), clock: clock) }
        #expect(await eventually { clock.pendingWakes == 1 })
        let event = Self.dataLengthChange(handle: 0x0040)
        // The wait may not have parked yet: the event is kept either way.
        #expect(event.withUnsafeBytes { waiter.offer($0) })
        #expect(await waiting.value == event)
        clock.advance(by: .seconds(2))
        #expect(clock.pendingWakes == 0)
    }
}
