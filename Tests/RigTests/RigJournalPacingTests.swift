import BLETesting
import Coordination
import Foundation
import PicoLink
import PicoSimulator
import RigCore
import Synchronization
import Testing

/// The rig records a run as `connect` does (`ControlledRecording`), with the journal as a sink that
/// may hold the recording back: a journal that has fallen behind slows the run's recording down and
/// loses nothing; a journal that fails ends the run, leaves the cell off and ends the rig.
@Suite struct RigJournalPacingTests {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "disk I/O error" }
    }

    @Test func aJournalThatFallsBehindHoldsTheRecordingBackAndLosesNothing() async throws {
        let held = Latch<Void>()
        let journal = MemoryJournal(backpressure: { count in
            count == 10 ? { @Sendable in await held.wait() } : nil
        })
        let rig = RigSupervisorTests.rig([try RigSupervisorTests.device("a", .once)], journal: journal)
        rig.start()
        // The recording waits for the journal after its tenth package, and takes no other meanwhile.
        #expect(await eventually(RigSupervisorTests.patience) { held.waiting == 1 })
        #expect(journal.runs.first?.packages.count == 10)
        #expect(rig.snapshots.first?.currentRun?.packages == 10)
        held.settle(())
        await rig.finished()
        let run = journal.runs[0]
        #expect(run.ended?.complete == true && run.ended?.reason == nil, "\(String(describing: run.ended))")
        #expect(run.packages.count == 201, "0 → 500 mV → −500 mV → 0 in 10 mV steps")
        #expect(run.packages.map { $0.index } == Array(0..<201), "every package, in order")
        #expect(rig.failure == nil)
    }

    @Test func aJournalThatFailsMidRunLeavesTheCellOffAndEndsTheRig() async throws {
        let device = SimulatedPico(configuration: SimulatedPicoConfiguration())
        device.start()
        defer { device.stop() }
        let journal = MemoryJournal(backpressure: { count in
            count == 5 ? { @Sendable in throw Broken() } : nil
        })
        let rig = RigSupervisorTests.rig(
            [try RigSupervisorTests.device("a", .continuous, script: RigSupervisorTests.ca)],
            connector: SimulatorConnector(device: device),
            journal: journal
        )
        rig.start()
        await rig.finished()
        #expect(rig.failure?.contains("disk I/O error") == true, "\(String(describing: rig.failure))")
        #expect(device.cell.isOn == false, "the recording left the cell off before the rig ended")
        let run = journal.runs[0]
        #expect(run.packages.count == 5 && run.ended == nil, "nothing recorded after the journal failed")
        #expect(journal.runs.count == 1, "no run started after it")
        guard case .finished(let reason) = rig.snapshots.first?.state else {
            Issue.record("\(String(describing: rig.snapshots.first?.state))")
            return
        }
        #expect(reason.hasPrefix("journal failed: "), "\(reason)")
    }
}
