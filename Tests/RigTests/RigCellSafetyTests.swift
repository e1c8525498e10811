import BLETesting
import Coordination
import Foundation
import PicoLink
import PicoSimulator
import RigCore
import Synchronization
import Testing

/// The rig never leaves a cell on without its records saying so: after a device error, a limit, a lost
/// link (found and switched off on the next connection), the simulated cell is off and the journal, the
/// device's snapshot and its counters tell what became of it.
@Suite struct RigCellSafetyTests {
    /// `cell_on`, a few points, then a potential the instrument cannot apply (`!4205`; from a variable, which no
    /// checker can see before the run): the firmware stops
    /// at the error and does not run `on_finished:`, so the cell stays on unless the host switches it off.
    static let failsMidRun =
        "e\nvar p\nvar c\nvar v\nstore_var v 5 ja\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
        + "meas_loop_ca p c 200m 10m 100m\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
        + "set_e v\n"
        + "on_finished:\n  cell_off\n\n"

    @Test func aDeviceErrorMidRunIsFollowedByCellOffAndTheJournalSaysSo() async throws {
        let journal = MemoryJournal()
        let device = SimulatedPico(configuration: .fast)
        device.start()
        defer { device.stop() }
        let rig = RigSupervisorTests.rig(
            [try RigSupervisorTests.device("a", .once, script: Self.failsMidRun)],
            connector: SimulatorConnector(device: device),
            journal: journal
        )
        rig.start()
        await rig.finished()
        let run = try #require(journal.runs.first)
        #expect(run.ended?.complete == false)
        #expect(run.ended?.reason?.contains("!4205") == true, "\(String(describing: run.ended))")
        #expect(run.packages.count == 10)
        #expect(run.cell?.hasPrefix("cell off confirmed at ") == true, "\(String(describing: run.cell))")
        #expect(device.cell.isOn == false)
        let snapshot = try #require(rig.snapshots.first)
        #expect(snapshot.lastCell?.hasPrefix("cell off confirmed at ") == true)
        #expect(snapshot.cellUnknown == 0)
    }

    @Test func aCurrentPastTheLimitStopsTheRunAndSwitchesTheCellOff() async throws {
        let journal = MemoryJournal()
        // Real time: a device that runs as fast as it can ends its script before any stop reaches it.
        let device = SimulatedPico(configuration: SimulatedPicoConfiguration())
        device.start()
        defer { device.stop() }
        var config = try RigSupervisorTests.device("a", .once, script: RigSupervisorTests.ca)
        // The simulated cell passes microamperes at 200 mV: 1 nA is passed at the first point.
        config.limits = RunLimits(maximumCurrent: 1e-9)
        let rig = RigSupervisorTests.rig([config], connector: SimulatorConnector(device: device), journal: journal)
        rig.start()
        await rig.finished()
        let run = try #require(journal.runs.first)
        #expect(run.ended?.complete == false)
        #expect(
            run.ended?.reason?.hasPrefix("limit: current ") == true
                && run.ended?.reason?.contains("is past the limit of 1 nA") == true,
            "\(String(describing: run.ended))"
        )
        #expect(run.cell?.hasPrefix("cell off confirmed at ") == true, "\(String(describing: run.cell))")
        #expect(run.packages.count < 200)
        #expect(device.cell.isOn == false)
    }

    @Test func aLostLinkLeavesTheCellUnknownAndTheNextConnectionFindsTheScriptAndSwitchesItOff() async throws {
        let clock = ManualClock()
        let start = clock.wallTime
        // Real time, so that the script still runs when the link goes.
        let device = SimulatedPico(configuration: SimulatedPicoConfiguration())
        device.start()
        defer { device.stop() }
        let connector = SimulatorConnector(device: device)
        let dropped = Atomic(false)
        let journal = MemoryJournal { count in
            if count == 20, !dropped.exchange(true, ordering: .relaxed) { connector.dropLink() }
        }
        let rig = RigSupervisorTests.rig(
            [try RigSupervisorTests.device("a", .every(60), script: RigSupervisorTests.ca)],
            connector: connector,
            journal: journal,
            clock: clock
        )
        rig.start()
        #expect(await eventually(RigSupervisorTests.patience) { journal.runs.first?.ended != nil })
        let first = try #require(journal.runs.first)
        #expect(first.ended?.reason?.hasPrefix("connection lost") == true, "\(String(describing: first.ended))")
        #expect(
            first.cell == "cell state unknown: the link was lost; the next connection switches the cell off",
            "\(String(describing: first.cell))"
        )
        // The device went on measuring without a host; the next connection stops it and switches the cell off.
        #expect(await eventually(RigSupervisorTests.patience) { rig.snapshots.first?.connected == true })
        #expect(await eventually(RigSupervisorTests.patience) { device.cell.isOn == false && !device.isRunningScript })
        let snapshot = try #require(rig.snapshots.first)
        #expect(
            snapshot.lastCell?.hasPrefix("cell off confirmed at ") == true,
            "\(String(describing: snapshot.lastCell))"
        )
        #expect(snapshot.cellUnknown == 1)
        clock.advance(toWallTime: start + 60)
        #expect(
            await eventually(RigSupervisorTests.patience) { journal.runs.count == 2 && journal.runs[1].ended != nil }
        )
        let found = try #require(journal.runs[1].provenance.foundAtConnect)
        #expect(
            found.hasPrefix(
                "a script was still running at connect (its output was arriving): aborted; cell off confirmed at "
            ),
            "\(found)"
        )
        #expect(journal.runs[1].ended?.complete == true && journal.runs[1].cell == nil)
        await rig.stop(reason: "stopped")
    }

    /// Runs that fail one after another (each followed by `cell_off`) back off after `max_failures`,
    /// and the rig goes on: the back-off once read the config under the lock it already held.
    @Test func runsThatFailInARowBackOffAndEachLeavesTheCellOff() async throws {
        let clock = ManualClock()
        let journal = MemoryJournal()
        let device = SimulatedPico(configuration: .fast)
        device.start()
        defer { device.stop() }
        var config = try RigSupervisorTests.device("a", .continuous, script: Self.failsMidRun)
        config.maximumFailures = 2
        let rig = RigSupervisorTests.rig(
            [config],
            connector: SimulatorConnector(device: device),
            journal: journal,
            clock: clock
        )
        rig.start()
        #expect(
            await eventually(RigSupervisorTests.patience) {
                if case .waitingToRetry(_, _, let reason) = rig.snapshots.first?.state {
                    return reason == "2 failed runs in a row"
                }
                return false
            }
        )
        #expect(journal.runs.count == 2)
        #expect(journal.runs.allSatisfy { $0.cell?.hasPrefix("cell off confirmed at ") == true })
        #expect(device.cell.isOn == false)
        await rig.stop(reason: "stopped")
    }

    /// A stop that comes once a run's start is recorded but before its script is sent: the run does not
    /// start, and it still says what became of the cell (a left-over script found on the device is
    /// aborted as the connection is made; the cell is switched off and that is confirmed).
    @Test func aRunStoppedBeforeItsScriptIsSentStillSaysWhatBecameOfTheCell() async throws {
        let rigBox = RigBox()
        let journal = MemoryJournal(onRunStarted: {
            guard let rig = rigBox.rig else { return }
            Task { await rig.stop(reason: "stopped (SIGTERM)") }
            // The stop has reached the device's supervisor once its state says so.
            while rig.snapshots.first?.state != .stopping { await Task.yield() }
        })
        let rig = RigSupervisorTests.rig([try RigSupervisorTests.device("a", .once)], journal: journal)
        rigBox.rig = rig
        rig.start()
        await rig.finished()
        let run = try #require(journal.runs.first)
        #expect(
            run.ended?.complete == false && run.ended?.reason == "stopped (SIGTERM)",
            "\(String(describing: run.ended))"
        )
        #expect(run.packages.isEmpty)
        #expect(run.cell?.hasPrefix("cell off confirmed at ") == true, "\(String(describing: run.cell))")
    }

    /// The rig a journal double's hook stops, set once the rig is made.
    final class RigBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Rig?
        var rig: Rig? {
            get { lock.withLock { value } }
            set { lock.withLock { value = newValue } }
        }
    }
}
