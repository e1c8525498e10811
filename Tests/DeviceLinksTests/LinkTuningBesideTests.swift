import BLEHost
import Coordination
import DeviceLinks
import Testing

/// A link's tuning beside its runs: the text a run's provenance reads says `being applied` until the
/// tuning reports, then what is in force; a run never waits for it.
@Suite struct LinkTuningBesideTests {
    /// A report whose connection update was done with a 7.5 ms interval.
    static func report(_ request: LinkTuningRequest) -> LinkTuningReport {
        var report = LinkTuningReport(request: request)
        report.connection = .done(LinkConnectionState(interval: 6, latency: 0, supervisionTimeout: 200))
        return report
    }

    @Test func theTextSaysBeingAppliedUntilTheTuningReportsThenWhatIsInForce() async throws {
        let release = Latch<Void>()
        let tuning = LinkTuningBeside(request: .lowLatency, base: "MTU 247") { request in
            await release.wait()
            return Self.report(request)
        }
        // Nothing waits for the tuning: the text is there at once, before and after it starts.
        #expect(tuning.parameters == "MTU 247, low-latency being applied")
        tuning.start()
        tuning.start()  // once only
        #expect(tuning.parameters == "MTU 247, low-latency being applied")
        release.settle(())
        let report = await tuning.report()
        #expect(report?.connection.value?.interval == 6)
        let inForce = try #require(report?.connection.value)
        #expect(tuning.parameters == "MTU 247, \(inForce)")
    }

    @Test func aTuningThatCannotTellSaysWhatWasRequestedAndNoneLeavesTheBase() async throws {
        let unknown = LinkTuningBeside(request: .lowLatency, base: "MTU 23") { _ in nil }
        #expect(await unknown.report() == nil)  // not started: nothing to wait for
        unknown.start()
        #expect(await unknown.report() == nil)
        #expect(unknown.parameters == "MTU 23, low-latency requested")
        let none = LinkTuningBeside(request: nil, base: "MTU 23") { Self.report($0) }
        none.start()
        #expect(none.parameters == "MTU 23")
        #expect(await none.report() == nil)
    }

    /// The rig runs the tuning as a child task beside a connection's runs; the connection's end cancels
    /// it, and the text stays as it was.
    @Test func aTuningCancelledWithItsTaskLeavesTheTextAsItWas() async throws {
        let tuning = LinkTuningBeside(request: .lowLatency, base: "MTU 247") { request in
            try? await Task.sleep(for: .seconds(30))
            return Self.report(request)
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await tuning.run() }
            group.cancelAll()  // the tuning's own sleep ends at the cancel, and so does the child
        }
        #expect(tuning.parameters == "MTU 247, low-latency being applied")
        await tuning.run()  // once only: it does not begin again
        #expect(tuning.parameters == "MTU 247, low-latency being applied")
    }
}
