import Foundation
import RigJournal
import Synchronization

/// The runs that event streams follow, each read from the journal once for all its followers: at most
/// once a commit, the run's state and its new packages, rendered as `package` events once. A follower
/// takes the text after the index it has sent; one that asks for packages older than the feed keeps
/// (it resumed from far back) reads those from the journal itself first.
final class RunFeeds: Sendable {
    /// Rendered events a feed keeps (the newest), for followers that are behind.
    let kept: Int
    /// Most packages one read takes.
    static let readLimit = 2_000

    /// What a follower gets: the events after its index, the index of the last, and the run's end once
    /// every package has been given.
    struct Slice {
        var text: String
        var last: Int
        var end: RunSummary?
    }

    private struct Feed {
        /// Rendered `package` events in index order, and their indices.
        var events: [String] = []
        var indices: [Int] = []
        /// The highest index read, and the commit sequence read up to.
        var lastIndex = -1
        var readSequence: UInt64?
        var summary: RunSummary?
        var followers = 0
    }

    private let feeds = Mutex<[Int64: Feed]>([:])
    private let journal: Journal
    private let committed: @Sendable () -> UInt64

    /// `committed`: the journal writer's commit sequence (a feed reads again only when it has moved).
    init(journal: Journal, kept: Int = 20_000, committed: @escaping @Sendable () -> UInt64) {
        self.journal = journal
        self.kept = kept
        self.committed = committed
    }

    func join(_ run: Int64) { feeds.withLock { $0[run, default: Feed()].followers += 1 } }

    func leave(_ run: Int64) {
        feeds.withLock { feeds in
            feeds[run]?.followers -= 1
            if feeds[run]?.followers ?? 0 <= 0 { feeds[run] = nil }
        }
    }

    /// The events of `run` after index `after`; nil when the journal has no such run.
    func slice(run: Int64, after: Int) throws -> Slice? {
        try feeds.withLock { feeds throws -> Slice? in
            var feed = feeds[run] ?? Feed()
            defer { feeds[run] = feed }
            let sequence = committed()
            if feed.readSequence != sequence || feed.summary == nil {
                // The state before the read: a run seen ended has every package committed already.
                guard let summary = try journal.runs(RunFilter(ids: [run])).first else { return nil }
                feed.summary = summary
                while true {
                    let packages = try journal.packages(of: run, after: feed.lastIndex, limit: Self.readLimit)
                    for package in packages {
                        feed.events.append(RunEventStream.event(package))
                        feed.indices.append(package.index)
                        feed.lastIndex = package.index
                    }
                    if packages.count < Self.readLimit { break }
                }
                if feed.events.count > kept {
                    feed.events.removeFirst(feed.events.count - kept)
                    feed.indices.removeFirst(feed.indices.count - kept)
                }
                feed.readSequence = sequence
            }
            var text = ""
            var last = after
            if let first = feed.indices.first, after + 1 < first {
                // Behind what the feed keeps: from the journal, up to where the feed starts.
                for package in try journal.packages(of: run, after: after, limit: Self.readLimit)
                where package.index < first {
                    text += RunEventStream.event(package)
                    last = package.index
                }
                return Slice(text: text, last: last, end: nil)
            }
            let start = Self.firstIndex(in: feed.indices, above: after)
            for position in start..<feed.indices.count {
                text += feed.events[position]
                last = feed.indices[position]
            }
            let ended = feed.summary.flatMap { $0.state == "running" ? nil : $0 }
            return Slice(text: text, last: last, end: last >= feed.lastIndex ? ended : nil)
        }
    }

    /// The position of the first of the ascending `indices` above `index` (binary search).
    static func firstIndex(in indices: [Int], above index: Int) -> Int {
        var low = 0
        var high = indices.count
        while low < high {
            let middle = (low + high) / 2
            if indices[middle] > index { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
