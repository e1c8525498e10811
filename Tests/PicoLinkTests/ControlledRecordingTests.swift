import BLETesting
import PicoAnalysis
import PicoLink
import PicoSimulator
import RunResults
import Synchronization
import Testing

/// `ControlledRecording`, the way `connect` and the console record a run: to its end into the sinks,
/// analysed as it ends, and stopped with `Z`, the cell then confirmed off, at a package past a limit.
@Suite struct ControlledRecordingTests {
    /// A package past a limit is known at once, before anything could stop the run: a run whose
    /// script ends first still passed it, and says so.
    @Test func aBreachIsKnownAsThePackageIsChecked() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let control = RunControl(session: link.session, limits: RunLimits(maximumCurrent: 1e-6))
        let package = { (index: Int, current: Double) in
            PicoPackage(
                device: "d",
                run: 1,
                index: index,
                loop: 1,
                scan: nil,
                hostTime: 0,
                values: [PicoValue(variable: .current, value: current)]
            )
        }
        control.check(package(0, 1e-7))
        #expect(control.limitBreach == nil)
        control.check(package(1, -2e-6))
        control.check(package(2, 5e-6))
        // The first breach is the one kept.
        #expect(control.limitBreach?.hasPrefix("limit: current -2") == true, "\(control.limitBreach ?? "none")")
        #expect(control.limitBreach?.contains("in package 1") == true)
    }

    @Test func aCompleteRunIsRecordedToItsEndAndAnalysed() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let sink = KeepingSink()
        let script = try PicoScript(try ExampleScripts.text("CV.mscr"))
        let recording = ControlledRecording(
            control: RunControl(session: link.session),
            script: script,
            sinks: [sink],
            analysis: AnalysisSettings()
        )
        let events = Atomic(0)
        let run = try await link.session.run(script, title: "cv")
        let end = try await recording.record(run) { _ in events.add(1, ordering: .relaxed) }
        #expect(end.complete && end.packages > 0 && end.packages == sink.packages.count, "\(end)")
        #expect(events.load(ordering: .relaxed) > end.packages)
        // Every sink got the same end, with the run's analysis in it.
        #expect(sink.ends == [end])
        #expect(end.analysis != nil && recording.analysis?.results != nil)
        #expect(!recording.control.limitPassed && end.cell == nil)
    }

    @Test func aPackagePastALimitStopsTheRunAndTheCellIsConfirmedOff() async throws {
        // In real time: the run is still going when the first package passes 1 nA.
        let link = try await SimulatedPicoSession.make(configuration: SimulatedPicoConfiguration())
        defer { link.close() }
        let sink = KeepingSink()
        let script = try PicoScript(try ExampleScripts.text("CV.mscr"))
        let recording = ControlledRecording(
            control: RunControl(session: link.session, limits: RunLimits(maximumCurrent: 1e-9)),
            script: script,
            sinks: [sink],
            analysis: nil
        )
        let end = try await recording.record(try await link.session.run(script, title: "cv"))
        #expect(!end.complete && end.reason?.contains("limit") == true, "\(end)")
        #expect(recording.control.limitPassed)
        guard case .offConfirmed = end.cell else {
            Issue.record("cell: \(String(describing: end.cell))")
            return
        }
        #expect(sink.ends == [end] && end.analysis == nil)
        #expect(link.session.isConnected)
    }
}
