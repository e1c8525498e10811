import BLETesting
import Coordination
import PicoLink
import PicoSimulator
import Testing

/// `version()` and `abort()` on a manual clock: each timeout belongs to its own call, a reply that
/// never comes fails the call when its time has passed, and cancelling the caller ends the wait at once.
@Suite struct PicoCommandTimeoutTests {
    @Test func anEarlierCommandsTimeoutNeverFailsALaterOne() async throws {
        let clock = ManualClock()
        let link = try await SimulatedPicoSession.make(clock: clock)
        defer { link.close() }
        let session = link.session
        #expect(try await session.version(timeout: .seconds(1)).device.hasPrefix("EmStat Pico"))
        // The next reply comes late; meanwhile the clock passes the moment the first call's timeout
        // was due. The second call, with its own 10 s, still gets its reply.
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .delay(.milliseconds(100)) : nil }
        let second = Task { try await session.version(timeout: .seconds(10)) }
        clock.advance(by: .seconds(2))
        #expect(try await second.value.device.hasPrefix("EmStat Pico"))
        // The same for abort on an idle device (Z!0006, and then the 100 ms the device needs).
        link.deviceEnd.injectFaults(nil)
        let firstAbort = Task { try await session.abort(timeout: .seconds(1)) }
        try await Self.passTheWaitAfterZ(clock)
        #expect(try await firstAbort.value == false)
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .delay(.milliseconds(100)) : nil }
        let secondAbort = Task { try await session.abort(timeout: .seconds(10)) }
        clock.advance(by: .seconds(2))
        try await Self.passTheWaitAfterZ(clock)
        #expect(try await secondAbort.value == false)
    }

    /// Waits until the session sleeps the 100 ms an idle device needs after `Z`, then passes them.
    static func passTheWaitAfterZ(_ clock: ManualClock) async throws {
        try #require(
            await eventually {
                clock.pendingDeadlines.contains { $0 <= clock.now + .milliseconds(100) }
            }
        )
        clock.advance(by: .milliseconds(100))
    }

    @Test func aVersionWithNoReplyTimesOutWhenItsTimeHasPassedAndLeavesTheSessionUsable() async throws {
        let clock = ManualClock()
        let link = try await SimulatedPicoSession.make(clock: clock)
        defer { link.close() }
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .drop : nil }
        let session = link.session
        let waiting = Task { try await session.version(timeout: .milliseconds(200)) }
        try #require(await eventually { clock.pendingWakes > 0 })
        clock.advance(by: .milliseconds(199))
        #expect(clock.pendingWakes == 1)
        clock.advance(by: .milliseconds(1))
        await #expect(throws: PicoSessionError.timeout("no reply to t within 0.2 seconds")) {
            try await waiting.value
        }
        link.deviceEnd.injectFaults(nil)
        #expect(try await session.version().device.hasPrefix("EmStat Pico"))
    }

    @Test func cancellingTheCallerEndsAVersionWaitAtOnce() async throws {
        let clock = ManualClock()
        let link = try await SimulatedPicoSession.make(clock: clock)
        defer { link.close() }
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .drop : nil }
        let session = link.session
        let waiting = Task { try await session.version(timeout: .seconds(30)) }
        // The device has answered (and lost its answer): the session is waiting in earnest.
        #expect(await eventually(.seconds(30)) { link.deviceEnd.sentCount >= 1 && clock.pendingWakes == 1 })
        waiting.cancel()
        await #expect(throws: PicoSessionError.cancelled) { try await waiting.value }
        // Ended by the cancellation: the clock never moved, and the timeout's wait is gone with it.
        #expect(clock.now == .zero && clock.pendingWakes == 0)
    }
}
