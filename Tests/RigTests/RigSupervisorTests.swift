import BLETesting
import Coordination
import Foundation
import Logging
import PicoLink
import PicoSimulator
import RigCore
import Synchronization
import Testing

@Suite struct RigSupervisorTests {
    static let cv =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
        + "meas_loop_cv p c 0 500m -500m 10m 100m\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
        + "on_finished:\n  cell_off\n\n"

    /// 200 packages over 2 s on a real-time simulator: long enough to lose the link in the middle.
    static let ca =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
        + "meas_loop_ca p c 200m 10m 2\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\nendloop\n"
        + "on_finished:\n  cell_off\n\n"

    /// How long a condition may take: generous, since the command-line suites that run beside these
    /// can hold both threads of the cooperative pool for many seconds on two cores.
    static let patience: Duration = .seconds(60)

    static func device(_ name: String, _ schedule: RunSchedule, script: String = cv) throws -> DeviceConfig {
        DeviceConfig(
            name: name,
            transport: "sim",
            scriptPath: "CV.mscr",
            script: try PicoScript(script),
            scriptText: script,
            schedule: schedule
        )
    }

    static func rig(
        _ devices: [DeviceConfig],
        connector: SimulatorConnector = SimulatorConnector(),
        journal: MemoryJournal,
        clock: any TimeSource = SystemClock(),
        calendar: Calendar = .current
    ) -> Rig {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return Rig(
            config: RigConfig(name: "test", journal: "", devices: devices),
            connector: connector,
            journal: journal,
            clock: clock,
            calendar: calendar,
            logger: logger,
            toolVersion: "hcipico test",
            backoff: ReconnectPolicy(initialDelay: 1, multiplier: 2, maximumDelay: 8, jitter: 0)
        )
    }

    @Test func aOnceScheduleRunsOnceAndFinishes() async throws {
        let journal = MemoryJournal()
        let rig = Self.rig([try Self.device("a", .once)], journal: journal)
        rig.start()
        await rig.finished()
        let runs = journal.runs
        #expect(runs.count == 1)
        #expect(runs.first?.ended?.complete == true && runs.first?.ended?.reason == nil)
        #expect(runs.first?.packages.count == 201)
        #expect(runs.first?.packages.first?.values.map(\.name) == ["p", "c"])
        let provenance = try #require(runs.first?.provenance)
        #expect(provenance.firmware?.hasPrefix("espico") == true && provenance.serialNumber == "SIMPICO00001")
        #expect(provenance.scriptSHA256.count == 64 && provenance.link == "test")
        #expect(rig.snapshots.first?.state == .finished(reason: "schedule done"))
    }

    @Test func anEveryScheduleStartsOnItsGridOfTheManualClock() async throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let journal = MemoryJournal()
        let rig = Self.rig([try Self.device("a", .every(60))], journal: journal, clock: clock)
        rig.start()
        #expect(
            await eventually(Self.patience) { journal.runs.first?.ended != nil && clock.nextDeadline == start + 60 }
        )
        #expect(journal.runs.count == 1)
        clock.advance(toWallTime: start + 59)
        #expect(journal.runs.count == 1)
        clock.advance(toWallTime: start + 60)
        #expect(await eventually(Self.patience) { journal.runs.count == 2 && journal.runs[1].ended != nil })
        #expect(journal.runs.map(\.provenance.startTime) == [start, start + 60])
        #expect(journal.runs.allSatisfy { $0.ended?.complete == true })
        await rig.stop(reason: "stopped")
        #expect(rig.snapshots.first?.state == .finished(reason: "stopped"))
    }

    /// A board without a battery-backed clock starts the rig at a stale time; NTP then sets the clock
    /// days forward, past the slot the device waits for. That run was missed: none starts at the
    /// time it happens to be, and the next starts at its own time.
    @Test func aClockSetForwardPastADailySlotRunsAtTheNextSlotNotAtOnce() async throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func instant(_ text: String) -> Double { ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 }
        let clock = ManualClock(wallTime: instant("2026-06-10T06:00:00Z"))
        let journal = MemoryJournal()
        let rig = Self.rig(
            [try Self.device("a", .daily([TimeOfDay("08:00")!]))],
            journal: journal,
            clock: clock,
            calendar: calendar
        )
        rig.start()
        #expect(await eventually(Self.patience) { clock.nextDeadline == instant("2026-06-10T08:00:00Z") })
        clock.advance(toWallTime: instant("2026-06-13T07:00:00Z"))
        #expect(await eventually(Self.patience) { clock.nextDeadline == instant("2026-06-13T08:00:00Z") })
        #expect(journal.runs.map(\.provenance.startTime).isEmpty)
        clock.advance(toWallTime: instant("2026-06-13T08:00:00Z"))
        #expect(await eventually(Self.patience) { journal.runs.first?.ended != nil })
        #expect(journal.runs.map(\.provenance.startTime) == [instant("2026-06-13T08:00:00Z")])
        await rig.stop(reason: "stopped")
    }

    /// The run timeout counts elapsed time from the run's start: once it fires the script is aborted and
    /// the run says it timed out.
    @Test func aRunPastItsTimeoutIsAbortedAndSaysSo() async throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let journal = MemoryJournal()
        var device = try Self.device("a", .once, script: Self.ca)
        device.runTimeout = 30
        let rig = Self.rig(
            [device],
            connector: SimulatorConnector(configuration: SimulatedPicoConfiguration()),
            journal: journal,
            clock: clock
        )
        rig.start()
        #expect(await eventually(Self.patience) { (journal.runs.first?.packages.count ?? 0) > 0 })
        clock.advance(toWallTime: start + 30)
        #expect(await eventually(Self.patience) { journal.runs.first?.ended != nil })
        let ended = try #require(journal.runs.first?.ended)
        #expect(
            ended.complete == false && ended.reason == "timed out after 30s; script aborted by Z",
            "worded as connect words it: \(String(describing: ended))"
        )
        #expect((journal.runs.first?.packages.count ?? 0) < 200)
        await rig.finished()
    }

    @Test func aLostLinkClosesTheRunWithItsReasonAndTheDeviceComesBack() async throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let connector = SimulatorConnector(configuration: SimulatedPicoConfiguration())
        let dropped = Atomic(false)
        let journal = MemoryJournal { count in
            if count == 20, !dropped.exchange(true, ordering: .relaxed) { connector.dropLink() }
        }
        let rig = Self.rig(
            [try Self.device("a", .every(60), script: Self.ca)],
            connector: connector,
            journal: journal,
            clock: clock
        )
        rig.start()
        #expect(await eventually(Self.patience) { journal.runs.first?.ended != nil })
        let first = try #require(journal.runs.first)
        #expect(first.ended?.complete == false)
        #expect(first.ended?.reason?.hasPrefix("connection lost") == true, "\(String(describing: first.ended))")
        #expect(first.packages.count >= 20 && first.packages.count < 200)
        #expect(await eventually(Self.patience) { connector.connects == 2 && rig.snapshots.first?.connected == true })
        #expect(rig.snapshots.first?.reconnects == 1)
        clock.advance(toWallTime: start + 60)
        #expect(await eventually(Self.patience) { journal.runs.count == 2 && journal.runs[1].ended != nil })
        #expect(journal.runs[1].ended?.complete == true && journal.runs[1].packages.count == 200)
        await rig.stop(reason: "stopped")
    }

    @Test func twoDevicesSharingAnAdapterThatFailsBothCloseTheirRunsAndComeBack() async throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let connector = SimulatorConnector(configuration: SimulatedPicoConfiguration())
        let failed = Atomic(false)
        let recorded = Mutex<MemoryJournal?>(nil)
        let journal = MemoryJournal { _ in
            // Both runs well under way (each device's, whichever started first: on a busy machine one
            // device may connect a good while after the other): the adapter fails, and the first
            // connect of each device after it.
            guard let runs = recorded.withLock({ $0 })?.runs, runs.count == 2,
                runs.allSatisfy({ $0.packages.count >= 30 })
            else { return }
            if !failed.exchange(true, ordering: .relaxed) {
                connector.failNext(2)
                connector.dropAllLinks()
            }
        }
        recorded.withLock { $0 = journal }
        let rig = Self.rig(
            [try Self.device("a", .every(60), script: Self.ca), try Self.device("b", .every(60), script: Self.ca)],
            connector: connector,
            journal: journal,
            clock: clock
        )
        rig.start()
        #expect(
            await eventually(Self.patience) { journal.runs.count == 2 && journal.runs.allSatisfy { $0.ended != nil } }
        )
        for run in journal.runs {
            #expect(run.ended?.complete == false)
            #expect(run.ended?.reason?.hasPrefix("connection lost") == true, "\(String(describing: run.ended))")
        }
        // Each device's first reconnect fails and waits 1 s of backoff.
        #expect(await eventually(Self.patience) { connector.connects == 4 && clock.pendingWakes == 2 })
        #expect(rig.snapshots.allSatisfy { if case .waitingToRetry = $0.state { true } else { false } })
        clock.advance(toWallTime: start + 1)
        #expect(await eventually(Self.patience) { connector.connects == 6 && rig.snapshots.allSatisfy(\.connected) })
        clock.advance(toWallTime: start + 60)
        #expect(
            await eventually(Self.patience) { journal.runs.count == 4 && journal.runs.allSatisfy { $0.ended != nil } }
        )
        for device in ["a", "b"] {
            let runs = journal.runs(of: device)
            #expect(runs.count == 2 && runs[1].ended?.complete == true && runs[1].packages.count == 200)
        }
        await rig.stop(reason: "stopped")
    }

    @Test func aDeviceThatStaysAwayIsRetriedWithBackoff() async throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let connector = SimulatorConnector()
        connector.failNext(3)
        let journal = MemoryJournal()
        let rig = Self.rig([try Self.device("a", .once)], connector: connector, journal: journal, clock: clock)
        rig.start()
        // 1 s, 2 s, 4 s between the attempts (no jitter in this policy).
        for (attempt, wait) in [(1, 1.0), (2, 2.0), (3, 4.0)] {
            #expect(await eventually(Self.patience) { connector.connects == attempt && clock.pendingWakes == 1 })
            guard case .waitingToRetry(let until, _, let reason)? = rig.snapshots.first?.state else {
                Issue.record("not waiting after attempt \(attempt): \(String(describing: rig.snapshots.first?.state))")
                return
            }
            #expect(until == clock.wallTime + wait && reason == "the device did not answer")
            clock.advance(toWallTime: until)
        }
        await rig.finished()
        #expect(journal.runs.count == 1 && journal.runs[0].ended?.complete == true)
        #expect(clock.wallTime == start + 7)
    }

    @Test func stoppingAbortsTheRunningScriptAndClosesItsRun() async throws {
        var configuration = SimulatedPicoConfiguration()
        configuration.abortStopsScript = true
        let connector = SimulatorConnector(configuration: configuration)
        let journal = MemoryJournal()
        let rig = Self.rig([try Self.device("a", .continuous)], connector: connector, journal: journal)
        rig.start()
        #expect(await eventually(Self.patience) { (journal.runs.first?.packages.count ?? 0) >= 3 })
        await rig.stop(reason: "stopped (interrupted (SIGTERM))")
        let run = try #require(journal.runs.first)
        #expect(
            run.ended?.complete == false && run.ended?.reason == "stopped (interrupted (SIGTERM)); script aborted by Z"
        )
        #expect(run.packages.count < 201)
        #expect(journal.runs.count == 1)
    }

    @Test func aReloadStartsAddedDevicesStopsRemovedOnesAndUpdatesTheRestInPlace() async throws {
        let clock = ManualClock()
        let start = clock.wallTime
        let journal = MemoryJournal()
        let connector = SimulatorConnector()
        let a = try Self.device("a", .every(3600))
        let b = try Self.device("b", .every(3600))
        let rig = Self.rig([a, b], connector: connector, journal: journal, clock: clock)
        rig.start()
        #expect(
            await eventually(Self.patience) { journal.runs.count == 2 && journal.runs.allSatisfy { $0.ended != nil } }
        )
        let connects = connector.connects
        let c = try Self.device("c", .once)
        var changedB = b
        changedB.schedule = .every(1800)
        let report = await rig.reload(RigConfig(name: "test", journal: "", devices: [changedB, c]))
        #expect(report.added == ["c"] && report.removed == ["a"] && report.updated == ["b"])
        #expect(report.reconnecting.isEmpty && report.needsRestart.isEmpty)
        #expect(await eventually(Self.patience) { journal.runs(of: "c").first?.ended?.complete == true })
        #expect(rig.snapshots.map(\.name) == ["b", "c"])
        // b kept its link and its last start: its next run is 1800 s after the first, not now.
        #expect(connector.connects == connects + 1, "only c connected")
        #expect(journal.runs(of: "b").count == 1)
        #expect(
            await eventually(Self.patience) {
                if case .idle(let next) = rig.snapshots.first(where: { $0.name == "b" })?.state {
                    return next == start + 1800
                }
                return false
            }
        )
        let again = await rig.reload(RigConfig(name: "test", journal: "", devices: [changedB, c]))
        #expect(again.unchanged == ["b", "c"] && again.added.isEmpty && again.removed.isEmpty)
        await rig.stop(reason: "stopped")
    }

    @Test func aScheduleChangeDuringARunLetsItFinishAndAConnectionChangeWaitsForIt() async throws {
        let journal = MemoryJournal()
        let connector = SimulatorConnector(configuration: SimulatedPicoConfiguration())
        let a = try Self.device("a", .every(3600), script: Self.ca)
        let rig = Self.rig([a], connector: connector, journal: journal)
        rig.start()
        #expect(await eventually(Self.patience) { (journal.runs.first?.packages.count ?? 0) >= 3 })
        var rescheduled = a
        rescheduled.schedule = .every(1800)
        rescheduled.runTimeout = 600
        let first = await rig.reload(RigConfig(name: "test", journal: "", devices: [rescheduled]))
        #expect(first.updated == ["a"])
        var moved = rescheduled
        moved.address = "F0:11:22:33:44:55"
        let second = await rig.reload(RigConfig(name: "test", journal: "", devices: [moved]))
        #expect(second.reconnecting == ["a"])
        #expect(journal.runs.first?.ended == nil, "the run in progress goes on")
        await rig.reconnected()
        let run = try #require(journal.runs.first)
        #expect(run.ended?.complete == true, "\(String(describing: run.ended))")
        #expect(run.packages.count == 200)
        #expect(await eventually(Self.patience) { connector.connects == 2 })
        #expect(await eventually(Self.patience) { rig.snapshots.first?.connected == true })
        await rig.stop(reason: "stopped")
    }

    @Test func aReloadLeavesTheRigsOwnPartsAndSaysARestartIsNeeded() async throws {
        let journal = MemoryJournal()
        let a = try Self.device("a", .every(3600))
        let rig = Self.rig([a], journal: journal, clock: ManualClock())
        rig.start()
        var config = RigConfig(name: "other", journal: "elsewhere.sqlite", devices: [a])
        config.status = StatusConfig(port: 9999)
        let report = await rig.reload(config)
        #expect(report.needsRestart == ["name", "journal", "[status]"])
        #expect(report.unchanged == ["a"])
        #expect("\(report)".hasSuffix("not applied: name, journal, [status] changed, restart the rig to apply it"))
        await rig.stop(reason: "stopped")
    }
}
