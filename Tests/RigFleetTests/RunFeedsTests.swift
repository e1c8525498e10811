import Coordination
import Foundation
import PicoLink
import RigModel
import Testing

@testable import RigJournal
@testable import RigStatus

/// A followed run's packages, rendered once from the journal's commits for all followers, each index
/// given once and in order, wherever a follower resumes; the end only after the last package.
@Suite struct RunFeedsTests {
    /// The indices a slice's text holds, in order.
    static func indices(_ text: String) -> [Int] {
        text.split(separator: "\n").compactMap { $0.hasPrefix("id: ") ? Int($0.dropFirst(4)) : nil }
    }

    /// A journal at `path` with a run of pico-a started and its first `packages` committed.
    static func started(
        path: String,
        packages: Int
    ) async throws -> (
        journal: Journal, writer: JournalWriter, provenance: RunProvenance, run: Int64
    ) {
        let journal = try Journal.open(path: path, rig: "lab-1")
        let writer = journal.writer(commitInterval: 0.005)
        let provenance = FleetFixtures.provenance(device: "pico-a", start: 1_000)
        try await writer.runStarted(provenance)
        for index in 0..<packages { try await writer.record(package(index), run: provenance.runID) }
        try await writer.flush()
        let run = try #require(try journal.runID(uuid: provenance.runID.uuidString.lowercased()))
        return (journal, writer, provenance, run)
    }

    static func package(_ index: Int) -> PicoPackage { FleetFixtures.package(index, device: "pico-a", start: 1_000) }

    @Test func followersGetEveryPackageOnceWhereverTheyResume() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let (journal, writer, provenance, run) = try await Self.started(path: path, packages: 50)
        // Keeping the newest 10 events only: a follower from the start reads the rest from the journal.
        let feeds = RunFeeds(journal: journal, kept: 10)
        writer.onCommit { feeds.commit($0) }
        try await Self.refreshing(feeds) {
            try await Self.followToTheEnd(feeds, journal: journal, writer: writer, provenance: provenance, run: run)
        }
        await writer.close()
    }

    /// Runs `body` with the feeds' refresher beside it, as the status server runs it.
    static func refreshing(_ feeds: RunFeeds, _ body: () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await feeds.run() }
            defer { group.cancelAll() }
            try await body()
        }
    }

    static func followToTheEnd(
        _ feeds: RunFeeds,
        journal: Journal,
        writer: JournalWriter,
        provenance: RunProvenance,
        run: Int64
    ) async throws {
        let follower = feeds.join(run)
        var sent: [Int] = []
        var last = -1
        while true {
            let slice = try #require(try feeds.slice(run: run, after: last))
            #expect(slice.end == nil, "the run is still running")
            if slice.isEmpty { break }
            sent += Self.indices(slice.text)
            last = slice.last
        }
        #expect(sent == Array(0..<50))
        // Resumed after 44: 45…49. The text is the events as sent.
        let resumed = try #require(try feeds.slice(run: run, after: 44))
        #expect(Self.indices(resumed.text) == [45, 46, 47, 48, 49])
        #expect(resumed.text.hasPrefix("id: 45\nevent: package\ndata: {\"index\":45,"))
        // The run ends: the end comes with the slice that holds the last package, not before.
        try await writer.runEnded(provenance.runID, JournalRunEnd(complete: true, reason: nil, time: 1_001))
        try await writer.flush()
        // The refresher reads the end at its commit and wakes the follower (at the latest at its look).
        let started = ContinuousClock.now
        // Bounded only so that a missing wake fails instead of hanging: the whole suite at once on two
        // cores can hold the refresher back for seconds.
        while try feeds.slice(run: run, after: 49)?.end == nil, ContinuousClock.now - started < .seconds(60) {
            await follower.signal.wait()
        }
        let behind = try #require(try feeds.slice(run: run, after: 20))
        #expect(Self.indices(behind.text) == Array(21..<40) && behind.end == nil)
        let tail = try #require(try feeds.slice(run: run, after: 40))
        #expect(Self.indices(tail.text) == Array(41..<50) && tail.end?.state == "complete")
        let end = try #require(try feeds.slice(run: run, after: 49)?.end)
        #expect(end.state == "complete" && end.packages == 50)
        #expect(try feeds.slice(run: run + 99, after: -1) == nil, "no such run")
        feeds.leave(follower)
    }

    /// The refresher reads at a commit and wakes the run's follower, which then finds the package; the
    /// refresher ends once nothing is followed.
    @Test func aCommitWakesTheRunsFollowers() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let (journal, writer, provenance, run) = try await Self.started(path: path, packages: 0)
        let feeds = RunFeeds(journal: journal)
        writer.onCommit { feeds.commit($0) }
        try await Self.refreshing(feeds) {
            let follower = feeds.join(run)
            #expect(try feeds.slice(run: run, after: -1)?.isEmpty == true)
            try await writer.record(Self.package(0), run: provenance.runID)
            // Woken within the idle look at the latest, and then the package is there.
            let started = ContinuousClock.now
            var indices: [Int] = []
            while indices.isEmpty && ContinuousClock.now - started < .seconds(60) {
                await follower.signal.wait()
                indices = Self.indices(try #require(try feeds.slice(run: run, after: -1)).text)
            }
            #expect(indices == [0])
            feeds.leave(follower)
            #expect(feeds.refresh() == .unfollowed)
        }
        await writer.close()
    }

    /// A commit whose packages leave a gap after what the feed has (a commit it never heard of): the
    /// missing ones are read from the journal, so the follower still gets every index once, in order.
    @Test func aGapInTheCommittedPackagesIsReadFromTheJournal() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let (journal, writer, provenance, run) = try await Self.started(path: path, packages: 10)
        let packages = (0..<20).map(Self.package)
        let feeds = RunFeeds(journal: journal)
        let follower = feeds.join(run)
        #expect(Self.indices(try #require(try feeds.slice(run: run, after: -1)).text) == Array(0..<10))
        for package in packages[10...] { try await writer.record(package, run: provenance.runID) }
        try await writer.flush()
        // Only 15…19 reported: 10…14 come from the journal.
        var commit = JournalCommit(sequence: 0, packages: 5, values: 10, duration: 0, committedAt: 0)
        commit.runPackages = packages[15...].map { JournalCommit.RunPackage(run: run, package: $0) }
        feeds.commit(commit)
        feeds.refresh()
        #expect(Self.indices(try #require(try feeds.slice(run: run, after: 9)).text) == Array(10..<20))
        feeds.leave(follower)
        await writer.close()
    }

    /// A follower is woken at most once a pace of the feeds' clock: a commit within the pace of its
    /// last wake holds it back until the pace has passed (a manual clock, moved by the test).
    @Test func aFollowerIsWokenAtMostOnceAPaceOfTheClock() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let (journal, writer, provenance, run) = try await Self.started(path: path, packages: 1)
        let clock = ManualClock()
        let feeds = RunFeeds(journal: journal, pace: .milliseconds(250), clock: clock)
        let follower = feeds.join(run)
        #expect(feeds.refresh() == .read(due: nil), "the first read wakes it at once")
        try await writer.record(Self.package(1), run: provenance.runID)
        try await writer.flush()
        // The commit as the writer reports it (filed here, so that the test does not race its report).
        var commit = JournalCommit(sequence: 0, packages: 1, values: 2, duration: 0, committedAt: 0)
        commit.runPackages = [JournalCommit.RunPackage(run: run, package: Self.package(1))]
        feeds.commit(commit)
        clock.advance(by: .milliseconds(100))
        #expect(feeds.refresh() == .read(due: .milliseconds(150)), "held back for the rest of its pace")
        clock.advance(by: .milliseconds(150))
        #expect(feeds.refresh() == .read(due: nil), "woken once its pace has passed")
        #expect(Self.indices(try #require(try feeds.slice(run: run, after: -1)).text) == [0, 1])
        feeds.leave(follower)
        await writer.close()
    }

    @Test func aPackageIsItsJSON() throws {
        let package = FleetFixtures.package(3, device: "pico-a", start: 1_000)
        let json = PackageEvent.json(package)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["index"] as? Int == 3)
        let values = try #require(object["values"] as? [[String: Any]])
        #expect(values.count == package.values.count)
        #expect(values.first?["name"] as? String == package.values.first?.name)
        #expect(object["host_time"] as? Double == package.hostTime)
        #expect(values.first?["value"] as? Double == package.values.first?.value)
        #expect(object["scan"] is NSNull == (package.scan == nil))
        #expect(PackageEvent.text(package) == "id: 3\nevent: package\ndata: \(json)\n\n")
        for integer in [0, 7, 10, -42, Int.max, Int.min] {
            var bytes: [UInt8] = []
            PackageEvent.appendInteger(integer, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(integer))
        }
        #expect(PackageEvent.quoted("µA \u{1F}") == "\"µA \\u001f\"")
        #expect(PackageEvent.quoted("a\"b\\c\n") == "\"a\\\"b\\\\c\\u000a\"")
        #expect(PackageEvent.number(.nan) == "null")
    }
}
