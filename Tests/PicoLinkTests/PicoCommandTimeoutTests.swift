import BLETesting
import PicoLink
import PicoSimulator
import Testing

/// `version()` and `abort()`: each timeout belongs to its own call, and cancelling the caller ends the
/// wait at once.
@Suite struct PicoCommandTimeoutTests {
    @Test func anEarlierCommandsTimeoutNeverFailsALaterOne() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        // Answered long before its 300 ms timeout.
        #expect(try await link.session.version(timeout: .milliseconds(300)).device.hasPrefix("EmStat Pico"))
        // The device now answers notifications slowly: the next version reply takes 500 ms to come,
        // past the moment the first call's timeout would have fired.
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .delay(.milliseconds(500)) : nil }
        let version = try await link.session.version(timeout: .seconds(10))
        #expect(version.device.hasPrefix("EmStat Pico"))
        // The same for abort on an idle device (Z!0006).
        link.deviceEnd.injectFaults(nil)
        #expect(try await link.session.abort(timeout: .milliseconds(300)) == false)
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .delay(.milliseconds(500)) : nil }
        #expect(try await link.session.abort(timeout: .seconds(10)) == false)
    }

    @Test func aVersionWithNoReplyTimesOutAndLeavesTheSessionUsable() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .drop : nil }
        await #expect(throws: PicoSessionError.timeout("no reply to t within 0.2 seconds")) {
            try await link.session.version(timeout: .milliseconds(200))
        }
        link.deviceEnd.injectFaults(nil)
        #expect(try await link.session.version().device.hasPrefix("EmStat Pico"))
    }

    @Test func cancellingTheCallerEndsAVersionWaitAtOnce() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B ? .drop : nil }
        let session = link.session
        let waiting = Task { try await session.version(timeout: .seconds(30)) }
        // The device has answered (and lost its answer): the session is waiting in earnest.
        #expect(await eventually(.seconds(30)) { link.deviceEnd.sentCount >= 1 })
        let cancelled = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: PicoSessionError.cancelled) { try await waiting.value }
        // Ended by the cancellation, not by the 30 s timeout. The bound is loose on purpose: with the
        // whole suite running on two cores the woken task may wait a second or more for a thread.
        #expect(ContinuousClock.now - cancelled < .seconds(10))
    }
}
