import BLETesting
import Coordination
import PicoLink
import PicoSimulator
import Synchronization
import Testing

/// `RunControl`, the one way a run is stopped from outside: `Z` and the device's end, or the link
/// closed when the device does not answer; a run timeout on the session's clock; nothing once the run
/// has ended.
@Suite struct RunControlTests {
    /// Set from the test, read on the transport's thread.
    final class Switch: Sendable {
        private let value = Atomic(false)
        func turnOn() { value.store(true, ordering: .relaxed) }
        var isOn: Bool { value.load(ordering: .relaxed) }
    }

    /// A CV (in real time: seconds of packages) on a session whose command timeouts run on `clock`.
    static func running(
        clock: any TimeSource,
        realTime: Bool = true
    ) async throws -> (SimulatedPicoSession, PicoRun) {
        let configuration = realTime ? SimulatedPicoConfiguration() : .fast
        let link = try await SimulatedPicoSession.make(configuration: configuration, clock: clock)
        return (link, try await link.session.run(text: try ExampleScripts.text("CV.mscr")))
    }

    /// Collects the run, calling `onThird` at its third package, and tells the control when it ended.
    static func collect(
        _ run: PicoRun,
        _ control: RunControl,
        onThird: @escaping @Sendable () -> Void
    ) async
        -> RunOutcome
    {
        let outcome = await RunOutcome.collect(run) { count in if count == 3 { onThird() } }
        control.runEnded()
        return outcome
    }

    /// Control with limits no answer misses however long the whole suite at once, on two cores, holds
    /// the session's tasks back: for tests on the system's clock where the device does answer.
    static func patientControl(_ session: PicoSession) -> RunControl {
        RunControl(session: session, abortReplyLimit: .seconds(60), endLimit: .seconds(60), cellOffLimit: .seconds(60))
    }

    @Test func aStopAbortsTheRunWhichTheDeviceEndsAndTheLinkStays() async throws {
        let (link, run) = try await Self.running(clock: SystemClock())
        defer { link.close() }
        let control = Self.patientControl(link.session)
        let stopped = Latch<Void>()
        let outcome = await Self.collect(run, control) {
            Task {
                await control.stop("interrupted (SIGTERM)")
                stopped.settle(())
            }
        }
        await stopped.wait()
        #expect(outcome.failure == nil && outcome.ended?.aborted == true)
        #expect(control.interruption.reason == "interrupted (SIGTERM)")
        #expect(!control.closedTheLink && !control.timedOut && link.session.isConnected)
        #expect(try await link.session.version().device == "EmStat Pico")
    }

    /// A recording that gives up mid-run (its output failed) while a stop's `Z` is on its way (the same
    /// failure's signal): the stop is waited for, not raced with a second `Z`, and the cell is switched
    /// off once the device has ended its script.
    @Test func leaveSafeDuringAStopWaitsForItAndSwitchesTheCellOff() async throws {
        let (link, run) = try await Self.running(clock: SystemClock())
        defer { link.close() }
        let control = Self.patientControl(link.session)
        var packages = 0
        for try await event in run.events {
            if case .package = event { packages += 1 }
            if packages == 3 { break }
        }
        // The events are no longer read: only the session sees the script's end.
        async let stopping: Void = control.stop("output closed")
        let cell = await control.leaveSafe(scriptEnded: false)
        await stopping
        guard case .offConfirmed = cell else {
            Issue.record("\(cell); \(control.interruption.reason ?? "")")
            return
        }
        #expect(!control.closedTheLink && link.session.isConnected)
        #expect(try await link.session.version().device == "EmStat Pico")
    }

    @Test func aDeviceThatDoesNotAnswerZHasItsLinkClosedWhenTheReplyIsDue() async throws {
        let clock = ManualClock()
        let (link, run) = try await Self.running(clock: clock)
        defer { link.close() }
        let control = RunControl(session: link.session)
        // From the third package on, nothing the device sends arrives: no more data, no reply to Z.
        let silent = Switch()
        link.deviceEnd.injectFaults { _, pdu in pdu.first == 0x1B && silent.isOn ? .drop : nil }
        let stopped = Latch<Void>()
        async let outcome = Self.collect(run, control) {
            silent.turnOn()
            Task {
                await control.stop("interrupted (SIGTERM)")
                stopped.settle(())
            }
        }
        // The abort waits for its reply on the manual clock: let its 2 s pass.
        try #require(await eventually { clock.pendingDeadlines == [.seconds(2)] })
        clock.advance(by: .seconds(2))
        let ended = await outcome
        await stopped.wait()
        #expect(ended.failure != nil && ended.ended == nil)
        #expect(control.closedTheLink && !link.session.isConnected)
        let reason = try #require(control.interruption.reason)
        #expect(reason.hasPrefix("interrupted (SIGTERM); no reply to Z ("), "\(reason)")
        #expect(reason.hasSuffix("; the link was closed"), "\(reason)")
    }

    @Test func aRunTimeoutStopsTheRunWhenItsTimeHasPassedOnTheSessionsClock() async throws {
        let clock = ManualClock()
        let (link, run) = try await Self.running(clock: clock)
        defer { link.close() }
        let control = RunControl(session: link.session)
        async let timeout: Void = control.stop(after: .seconds(30), reason: "timed out after 30s")
        let outcome = await Self.collect(run, control) { clock.advance(by: .seconds(30)) }
        await timeout
        #expect(outcome.ended?.aborted == true && outcome.packages.count < 201)
        #expect(control.timedOut && control.interruption.reason == "timed out after 30s")
    }

    @Test func aStopAfterTheRunEndedSendsNothing() async throws {
        let (link, run) = try await Self.running(clock: SystemClock(), realTime: false)
        defer { link.close() }
        let control = RunControl(session: link.session)
        let outcome = await RunOutcome.collect(run)
        control.runEnded()
        #expect(outcome.ended?.aborted == false)
        let sent = link.deviceEnd.sentCount
        await control.stop("interrupted (SIGTERM)")
        // No Z went out, so the device sent no `Z!0006`.
        #expect(link.deviceEnd.sentCount == sent && !control.closedTheLink && link.session.isConnected)
    }
}
