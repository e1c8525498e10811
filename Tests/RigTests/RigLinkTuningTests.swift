import BLEHost
import BLETesting
import Coordination
import Testing

@testable import RigCore

/// The rig tunes a link beside its runs: the provenance says so until the tuning reports.
@Suite struct RigLinkTuningTests {
    @Test func theTextSaysBeingAppliedUntilTheTuningReportsThenWhatIsInForce() async throws {
        let release = Latch<Void>()
        let tuning = RigLinkTuning(base: "MTU 247", request: .lowLatency) { _ in
            await release.wait()
            return "interval 7.5 ms"
        }
        // Nothing waits for the tuning: the text is there at once, and a run may start.
        #expect(tuning.parameters == "MTU 247, low-latency being applied")
        release.settle(())
        #expect(await eventually { tuning.parameters == "MTU 247, interval 7.5 ms" })
    }

    @Test func aTuningThatCannotTellSaysWhatWasRequestedAndNoneLeavesTheBase() async throws {
        let unknown = RigLinkTuning(base: "MTU 23", request: .lowLatency) { _ in nil }
        #expect(await eventually { unknown.parameters == "MTU 23, low-latency requested" })
        let none = RigLinkTuning(base: "MTU 23", request: nil) { _ in "never" }
        #expect(none.parameters == "MTU 23")
    }

    @Test func aCancelledTuningLeavesTheTextAsItWas() async throws {
        let tuning = RigLinkTuning(base: "MTU 247", request: .lowLatency) { _ in
            try? await Task.sleep(for: .seconds(30))
            return "interval 7.5 ms"
        }
        tuning.cancel()
        await tuning.ended()  // the tuning's own sleep ends at the cancel, and so does the task
        #expect(tuning.parameters == "MTU 247, low-latency being applied")
    }
}
