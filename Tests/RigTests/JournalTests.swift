import BLETesting
import Foundation
import GRDB
import MethodSCRIPT
import PicoLink
import RigModel
import Synchronization
import Testing

@testable import RigJournal

@Suite struct JournalTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func provenance(device: String = "pico-1", start: Double = 1_795_600_000) -> RunProvenance {
        RunProvenance(
            device: device,
            deviceRun: 1,
            title: "CV.mscr",
            transport: "sim",
            firmware: "espico1209",
            serialNumber: "SIM-1",
            scriptName: "CV.mscr",
            script: "var p\nvar c",
            scriptSHA256: String(repeating: "ab", count: 32),
            link: "MTU 247",
            toolVersion: "hcipico test",
            startTime: start
        )
    }

    static func package(_ index: Int, device: String = "pico-1") -> PicoPackage {
        PicoPackage(
            device: device,
            run: 1,
            index: index,
            loop: 0,
            scan: index % 2,
            hostTime: 1_795_600_000 + Double(index) * 0.01,
            values: [
                PicoValue(variable: .appliedPotential, name: "p", value: Double(index) * 0.01),
                PicoValue(
                    variable: .current,
                    name: "c",
                    value: index == 3 ? .nan : -1.25e-6 * Double(index),
                    status: index == 2 ? .underload : .ok,
                    range: MeasurementRange(rawValue: 0x88),
                    noise: index == 1 ? 7 : nil
                ),
            ]
        )
    }

    @Test func packagesReadBackExactlyAsRecorded() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.01)
        let run = Self.provenance()
        try await writer.runStarted(run)
        let sent = (0..<50).map { Self.package($0) }
        for package in sent { try await writer.record(package, run: run.runID) }
        try await writer.runEnded(run.runID, JournalRunEnd(complete: true, reason: nil, time: 1_795_600_010))
        try await writer.flush()
        await writer.close()

        let reader = try Journal.openForReading(path: path)
        let runs = try reader.runs()
        #expect(runs.count == 1)
        #expect(runs[0].state == "complete" && runs[0].packages == 50 && runs[0].reason == nil)
        var read: [PicoPackage] = []
        try reader.forEachPackage(of: runs[0].id) { read.append($0) }
        #expect(read.count == 50)
        for (got, want) in zip(read, sent) {
            #expect(got.index == want.index && got.scan == want.scan && got.hostTime == want.hostTime)
            #expect(got.values.map(\.name) == ["p", "c"])
            #expect(got.values.map(\.variable) == want.values.map(\.variable))
            #expect(got.values.map(\.status) == want.values.map(\.status))
            #expect(got.values.map(\.range) == want.values.map(\.range))
            #expect(got.values.map(\.noise) == want.values.map(\.noise))
            for (a, b) in zip(got.values, want.values) {
                #expect(a.value == b.value || (a.value.isNaN && b.value.isNaN))
            }
        }
        let back = try reader.provenance(of: runs[0].id)
        #expect(back == run)
        #expect(try reader.integrityCheck() == ["ok"])
    }

    @Test func aDevicesRunNumbersGoOnAcrossWritersAndNeverRepeat() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        for expected in [1, 2, 3] {
            let journal = try Journal.open(path: path, rig: "bench")
            let writer = journal.writer(commitInterval: 0.01)
            let number = try writer.nextRunNumber(device: "pico-1")
            #expect(number == expected, "a new writer (a restart) counts on from the journal")
            var run = Self.provenance()
            run.deviceRun = number
            try await writer.runStarted(run)
            try await writer.runEnded(run.runID, JournalRunEnd(complete: true, reason: nil, time: 1_795_600_010))
            try await writer.flush()
            #expect(try writer.nextRunNumber(device: "pico-2") == 1, "each device counts its own runs")
            await writer.close()
        }
        let runs = try Journal.openForReading(path: path).runs()
        #expect(runs.map(\.deviceRun) == [1, 2, 3])
    }

    @Test func openingAnOlderJournalRenumbersRepeatedRunNumbersAndSaysSo() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        // A journal as the version before wrote it: every rig start began each device at run 1.
        let pool = try DatabasePool(path: path)
        try JournalSchema.migrator().migrate(pool, upTo: "v2: forward positions, pruning")
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO devices (id, name) VALUES (1, 'cell-1'), (2, 'cell-2')")
            for (id, device, number) in [(1, 1, 1), (2, 2, 1), (3, 1, 1), (4, 1, 2), (5, 1, 1)] {
                try db.execute(
                    sql: """
                        INSERT INTO runs (id, uuid, device_id, device_run, title, state, started_at, transport,
                            script_name, script, script_sha256, tool_version)
                        VALUES (?, ?, ?, ?, 'CV', 'complete', 0, 'sim', 'CV.mscr', '', '', 'old')
                        """,
                    arguments: [id, UUID().uuidString.lowercased(), device, number]
                )
            }
            try db.execute(
                sql: "INSERT INTO forward_positions VALUES ('postgres', 3, 0, -1, 'complete', 0)"
            )
        }
        try pool.close()
        let journal = try Journal.open(path: path, rig: "bench")
        #expect(
            journal.renumbered.map { "\($0)" } == [
                "cell-1 run 1 (row 3) is now run 2", "cell-1 run 2 (row 4) is now run 3",
                "cell-1 run 1 (row 5) is now run 4",
            ]
        )
        #expect(try journal.runs().map(\.deviceRun) == [1, 1, 2, 3, 4])
        let positions = try await journal.database.read { db in
            try String.fetchAll(db, sql: "SELECT state FROM forward_positions")
        }
        #expect(positions == ["renumbered"], "the forwarder sends the run's row again, with its new number")
        let writer = journal.writer()
        #expect(try writer.nextRunNumber(device: "cell-1") == 5)
        await writer.close()
        #expect(try Journal.open(path: path, rig: "bench").renumbered.isEmpty, "once only")
    }

    /// The `samples` view numbers loops and scans from 1 and turns the current range index into amperes.
    @Test func theSamplesViewGivesNumbersFromOneAndTheRangeInAmperes() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.01)
        let run = Self.provenance()
        try await writer.runStarted(run)
        var outside = Self.package(0)
        outside.loop = 1
        outside.scan = nil
        var second = Self.package(1)
        second.loop = 1
        second.scan = 2
        for package in [outside, second] { try await writer.record(package, run: run.runID) }
        try await writer.flush()
        await writer.close()
        let rows = try journal.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT package, loop, scan, device_run, current_range, current_range_full_scale, current_range_label
                    FROM samples WHERE name = 'c' ORDER BY package
                    """
            )
        }
        #expect(rows.map { [$0[0], $0[1], $0[2], $0[3]] as [Int] } == [[0, 1, 1, 1], [1, 1, 2, 1]])
        #expect(rows.allSatisfy { ($0[4] as Int) == 0x88 && ($0[5] as Double) == 1e-3 })
        #expect((rows.first?[6] as String?) == "1 mA (high speed)")
    }

    @Test func runsLeftRunningAreClosedWhenTheJournalOpensAgain() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.01)
        let run = Self.provenance()
        try await writer.runStarted(run)
        for index in 0..<7 { try await writer.record(Self.package(index), run: run.runID) }
        try await writer.flush()
        // No runEnded and no close: as after kill -9.
        let reopened = try Journal.open(path: path, rig: "bench")
        #expect(reopened.recovered.count == 1)
        let runs = try reopened.runs()
        #expect(runs.map(\.state) == ["incomplete"])
        #expect(runs[0].reason == "rig restarted" && runs[0].packages == 7)
        // The run's cell may have been left on: the record says so.
        #expect(runs[0].cell?.hasPrefix("cell state unknown: the rig ended without closing this run") == true)
        #expect(runs[0].endedAt == Self.package(6).hostTime)
        await writer.close()
    }

    @Test func requestsKeepTheirNewestRecordAndThoseLeftOpenAreClosedWhenTheJournalOpensAgain() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.01)
        let run = Self.provenance()
        try await writer.runStarted(run)
        var running = RunRequest(id: "r1", device: "a", title: "dpv", script: ["var c"], submittedAt: 1, submitter: "t")
        running.state = .running
        running.revision = 2
        running.runID = run.runID.uuidString.lowercased()
        try await writer.requestChanged(running)
        // An older record written later (a submission's, behind its start's) changes nothing.
        var stale = running
        stale.state = .queued
        stale.revision = 0
        try await writer.requestChanged(stale)
        let queued = RunRequest(id: "r2", device: "a", title: "cv", script: ["var c"], submittedAt: 2, submitter: "t")
        try await writer.requestChanged(queued)
        try await writer.controlAction(
            ControlAction(
                time: 3,
                actor: "control token (test)",
                action: "submit",
                device: "a",
                requestID: "r2",
                detail: "cv"
            )
        )
        try await writer.flush()
        // No end and no close: as after kill -9.
        let reopened = try Journal.open(path: path, rig: "bench")
        // What a restarted rig keeps answering for: both, ended, oldest first, their keys and runs.
        let ended = try reopened.endedRequests(perDevice: 100)
        #expect(ended.map(\.id) == ["r1", "r2"] && ended.map(\.state) == [.incomplete, .cancelled])
        #expect(ended[0].runID == running.runID && ended[0].script == ["var c"] && ended[0].revision == 3)
        #expect(try reopened.endedRequests(perDevice: 1).map(\.id) == ["r2"], "the newest of each device")
        let database = try DatabaseQueue(path: path)
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, state, reason, revision FROM run_requests ORDER BY id")
        }
        #expect(rows.map { $0["state"] as String } == ["incomplete", "cancelled"])
        #expect(rows[0]["reason"] as String == "rig restarted" && rows[0]["revision"] as Int == 3)
        #expect((rows[1]["reason"] as String).hasPrefix("the rig ended before it ran"))
        let actions = try database.read { db in
            try Row.fetchAll(db, sql: "SELECT actor, action, device, request_id FROM control_actions")
        }
        #expect(actions.count == 1 && actions[0]["action"] as String == "submit")
        #expect(actions[0]["request_id"] as String == "r2" && actions[0]["actor"] as String == "control token (test)")
        await writer.close()
    }

    @Test func commitsAreGroupedAndObserved() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.05)
        let commits = CommitLog()
        writer.onCommit { commits.add($0) }
        let run = Self.provenance()
        try await writer.runStarted(run)
        for index in 0..<1000 { try await writer.record(Self.package(index), run: run.runID) }
        try await writer.flush()
        await writer.close()
        let seen = commits.all
        #expect(seen.reduce(0) { $0 + $1.packages } == 1000)
        #expect(seen.count < 100, "1000 packages appended at once commit in a few transactions, not one each")
        #expect(seen.last?.sequence == 1001)
    }

    /// A flush returns once the commit it waited for has been observed, even by a slow observer, so a
    /// caller that flushes may count on what observers do with that commit: whether the flush came
    /// before the commit, or after it while the observer still handled it.
    @Test(arguments: [false, true])
    func aFlushReturnsAfterItsCommitWasObserved(flushingAfterTheCommit: Bool) async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.01)
        let commits = CommitLog()
        writer.onCommit { commit in
            usleep(300_000)
            commits.add(commit)
        }
        let run = Self.provenance()
        try await writer.runStarted(run)
        for index in 0..<10 { _ = try writer.enqueue(Self.package(index), run: run.runID) }
        if flushingAfterTheCommit { #expect(await eventually { writer.committedSequence == 11 }) }
        try await writer.flush()
        #expect(commits.all.last?.sequence == 11, "\(commits.all.map(\.sequence))")
        await writer.close()
    }

    @Test func theWriteAheadLogIsCopiedBackAndStaysBoundedWhileTheWriterCommits() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.02)
        let run = Self.provenance()
        try await writer.runStarted(run)
        // About 4 s of commits, 20,000 packages each second: the checkpointer is asked once a second.
        var largestLog = 0
        for second in 0..<4 {
            for slice in 0..<10 {
                for index in 0..<2000 {
                    try await writer.record(Self.package(second * 20_000 + slice * 2000 + index), run: run.runID)
                }
                try await writer.flush()
                try await Task.sleep(for: .milliseconds(100))
                largestLog = max(largestLog, Self.size(path + "-wal"))
            }
        }
        await writer.close()
        #expect(writer.checkpointsRun > 0)
        #expect(writer.checkpointFailure == nil, "\(writer.checkpointFailure ?? "")")
        // The database file holds the data (not only the log), and the log was restarted rather than
        // grown to hold all 80,000 packages (several MB).
        #expect(Self.size(path) > 1_000_000, "database file \(Self.size(path)) bytes")
        #expect(largestLog < Self.size(path), "log reached \(largestLog) bytes, database \(Self.size(path))")
        let reopened = try Journal.openForReading(path: path)
        #expect(try reopened.runs().first?.packages == 80_000)
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func aFullDiskFailsTheWriterAndEveryLaterCall() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        try await journal.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + 2)")
        }
        let writer = journal.writer(commitInterval: 0.01)
        let run = Self.provenance()
        try await writer.runStarted(run)
        var failure: JournalError?
        do {
            for index in 0..<5000 { try await writer.record(Self.package(index), run: run.runID) }
            try await writer.flush()
        } catch {
            failure = error
        }
        guard case .writeFailed(let message)? = failure else {
            Issue.record("a full journal was reported as written: \(String(describing: failure))")
            return
        }
        #expect(message.contains("full"), "\(message)")
        await #expect(throws: JournalError.self) { try await writer.record(Self.package(0), run: run.runID) }
        #expect(writer.failed != nil)
        await writer.close()
    }

    @Test func aFileThatIsNotAJournalIsRefused() throws {
        let path = Self.path()
        defer { Self.remove(path) }
        try Data("not a database, just text that is long enough to be a header".utf8).write(
            to: URL(fileURLWithPath: path)
        )
        #expect(throws: JournalError.self) { try Journal.open(path: path, rig: "bench") }
        #expect(throws: JournalError.self) { try Journal.openForReading(path: path + ".missing") }
    }
}

/// Commits seen by an observer on the writer's thread.
final class CommitLog: Sendable {
    private let commits = Mutex<[JournalCommit]>([])
    func add(_ commit: JournalCommit) { commits.withLock { $0.append(commit) } }
    var all: [JournalCommit] { commits.withLock { $0 } }
}
