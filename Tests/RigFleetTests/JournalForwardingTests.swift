import BLETesting
import Foundation
import Logging
import PicoLink
import RigForward
import RigJournal
import RigModel
import RunResults
import Testing

/// The journal's side of forwarding: every committed package handed out once, in order within its run,
/// whatever the batch size; the position moves only when confirmed; pruning takes only what the sink has.
@Suite struct JournalForwardingTests {
    /// Two runs recorded interleaved (the first ends, the second is left running) and a third with no packages.
    func journal(_ path: String) async throws -> (Journal, [String: [PicoPackage]]) {
        let journal = try Journal.open(path: path, rig: "lab-1")
        let writer = journal.writer(commitInterval: 0.005)
        let first = FleetFixtures.provenance(device: "pico-a", start: 1_000)
        let second = FleetFixtures.provenance(device: "pico-b", start: 1_001)
        let third = FleetFixtures.provenance(device: "pico-c", start: 1_002)
        try await writer.runStarted(first)
        try await writer.runStarted(second)
        var sent: [String: [PicoPackage]] = [:]
        for index in 0..<40 {
            let a = FleetFixtures.package(index, device: "pico-a", start: 1_000)
            try await writer.record(a, run: first.runID)
            sent[first.runID.uuidString.lowercased(), default: []].append(a)
            if index % 2 == 0 {
                let b = FleetFixtures.package(index / 2, device: "pico-b", start: 1_001)
                try await writer.record(b, run: second.runID)
                sent[second.runID.uuidString.lowercased(), default: []].append(b)
            }
            if index % 10 == 9 { try await writer.flush() }
        }
        try await writer.runEnded(first.runID, JournalRunEnd(complete: true, reason: nil, time: 1_002))
        try await writer.runStarted(third)
        try await writer.runEnded(third.runID, JournalRunEnd(complete: false, reason: "the upload failed", time: 1_003))
        try await writer.flush()
        await writer.close()
        return (journal, sent)
    }

    @Test(arguments: [1, 7, 25, 1000])
    func everyPackageOnceInOrderWhateverTheBatch(limit: Int) async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let (journal, sent) = try await journal(path)
        var received: [String: [Int]] = [:]
        var states: [String: [String]] = [:]
        var batches = 0
        while let batch = try journal.forwardBatch(sink: "pg", limit: limit) {
            batches += 1
            #expect(batch.packages.count <= limit)
            for package in batch.packages { received[batch.runs[package.run].uuid, default: []].append(package.index) }
            #expect(batch.values.count == batch.packages.count * 2)
            #expect(batch.values.allSatisfy { value in value.name != "c" || value.index != 3 || value.value == nil })
            for run in batch.runs { states[run.uuid, default: []].append(run.state) }
            try journal.confirmForwarded(sink: "pg", batch: batch)
            #expect(batches < 200)
        }
        for (uuid, packages) in sent { #expect(received[uuid] == packages.map(\.index)) }
        let runs = try journal.runs()
        let first = try #require(runs.first { $0.device == "pico-a" })
        let third = try #require(runs.first { $0.device == "pico-c" })
        // An ended run reaches the sink as ended only with its last package.
        #expect(states[first.uuid]?.last == "complete")
        #expect(states[first.uuid]?.dropLast().allSatisfy { $0 == "running" } == true)
        #expect(states[third.uuid] == ["incomplete"])
        #expect(try journal.forwardLag(sink: "pg") == ForwardLag(packages: 0, oldestHostTime: nil))
        #expect(try journal.forwardBatch(sink: "other", limit: 1000) != nil)
    }

    @Test func anUnconfirmedBatchIsHandedOutAgainAndAResyncMovesThePosition() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let (journal, _) = try await journal(path)
        let first = try #require(try journal.forwardBatch(sink: "pg", limit: 10))
        let again = try #require(try journal.forwardBatch(sink: "pg", limit: 10))
        #expect(first.packages == again.packages)
        #expect(try journal.forwardLag(sink: "pg").packages == 60)
        #expect(try journal.forwardLag(sink: "pg").oldestHostTime == 1_000)
        // The sink says it has the first 10 of run A: the journal takes its word.
        let run = first.runs[0]
        try journal.setForwardPosition(sink: "pg", run: run.uuid, packages: 10, lastIndex: 9, state: "running")
        let next = try #require(try journal.forwardBatch(sink: "pg", limit: 5))
        #expect(next.packages.map(\.index) == [10, 11, 12, 13, 14])
        #expect(try journal.unconfirmedRuns(sink: "pg").count == 3)
    }

    @Test func pruningTakesOnlyEndedRunsTheSinkHoldsWhole() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let (journal, _) = try await journal(path)
        // Nothing forwarded: nothing pruned.
        #expect(try journal.prune(sink: "pg", endedBefore: 10_000) == (0, 0))
        while let batch = try journal.forwardBatch(sink: "pg", limit: 15) {
            try journal.confirmForwarded(sink: "pg", batch: batch)
        }
        // Run A ended at 1002: not older than 1001; then it is. Run B is still running: never. A run is
        // pruned only once analysed (the analysis reads its points).
        #expect(try journal.prune(sink: "pg", endedBefore: 1_001) == (0, 0))
        #expect(try journal.prune(sink: "pg", endedBefore: 10_000) == (0, 0), "not analysed yet")
        for run in try journal.runsAwaitingAnalysis() {
            try journal.record(StoredAnalysis(run: run, kind: .none, analysedAt: 5, note: "nothing to analyse"))
        }
        let pruned = try journal.prune(sink: "pg", endedBefore: 10_000)
        #expect(pruned.runs == 2 && pruned.packages == 40)
        let runs = try journal.runs()
        #expect(runs.filter { $0.prunedAt != nil }.map(\.device).sorted() == ["pico-a", "pico-c"])
        let a = try #require(runs.first { $0.device == "pico-a" })
        var left = 0
        try journal.forEachPackage(of: a.id) { _ in left += 1 }
        #expect(left == 0 && a.packages == 40)
        #expect(try journal.forwardBatch(sink: "pg", limit: 100) == nil)
        let b = try #require(runs.first { $0.device == "pico-b" })
        var kept = 0
        try journal.forEachPackage(of: b.id) { _ in kept += 1 }
        #expect(kept == 20)
    }
}

/// What the forwarder says when PostgreSQL cannot be reached: one sentence with the place and the
/// system's reason, not nested error values.
@Suite struct ForwardFailureTextTests {
    @Test func anUnreachableServerIsOneSentence() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let journal = try Journal.open(path: path, rig: "lab-1")
        // A port nothing listens on: bound, never listened to, so the connect is refused.
        let holder = try LoopbackPort(listening: false)
        defer { holder.close() }
        let port = holder.port
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let forwarder = PostgresForwarder(
            journal: journal,
            rig: "lab-1",
            config: PostgresForwardConfig(
                url: "postgresql://rig@127.0.0.1:\(port)/lab",
                endpoint: .tcp(host: "127.0.0.1", port: port),
                user: "rig",
                database: "lab",
                sslMode: .disable
            ),
            password: nil,
            logger: logger
        )
        let task = Task { await forwarder.run() }
        defer { task.cancel() }
        #expect(await eventually { forwarder.status.lastError != nil })
        let text = try #require(forwarder.status.lastError)
        #expect(
            text == "cannot reach PostgreSQL at postgresql://rig@127.0.0.1:\(port)/lab: connection refused",
            "\(text)"
        )
    }
}
