import Coordination
import Foundation
import NIOCore
import PicoLink
import RigJournal
import Synchronization

/// The runs that event streams follow, each rendered once for all its followers from what the journal
/// commits.
///
/// A feed starts from the journal (the run's state and the packages it holds when the first follower
/// joins), then takes each commit's packages of the run as the journal writer reports them (the rows it
/// has just committed, so nothing is read back; filed apart from the feeds, so that the writer never
/// waits for a feed's read), and reads the run's state again when the commit ends
/// it. A package whose index leaves a gap is read from the journal with those before it. The refresher
/// (one task, running while anyone follows) renders what the commits brought as `package` events and
/// wakes the run's followers; a follower then takes the bytes after the index it has sent, in one piece.
/// A follower that asks for packages older than the feed keeps (it resumed from far back) reads those
/// from the journal itself. With nothing committed the refresher still wakes every follower each
/// `idleLook`, so that it can send its keep-alive, and no follower needs a timer of its own.
///
/// A follower is woken at most once a `pace` (its first wake at once), so that a stream writes a few
/// commits' packages at a time; a package may then wait up to `pace` more than its commit.
final class RunFeeds: Sendable {
    /// Rendered events a feed keeps (the newest), for followers that are behind.
    let kept: Int
    /// Most packages one read takes.
    static let readLimit = 2_000
    /// The longest a follower waits to be woken when nothing is committed.
    static let idleLook: Duration = .seconds(1)
    /// How soon a read that failed is tried again.
    static let retryAfter: Duration = .milliseconds(50)
    /// The least time between two wakes of one follower.
    let pace: Duration

    /// What a follower gets: the events after its index, the index of the last, and the run's end once
    /// every package has been given.
    struct Slice {
        var bytes: ByteBuffer
        var last: Int
        var end: RunSummary?

        var isEmpty: Bool { bytes.readableBytes == 0 }
        var text: String { String(buffer: bytes) }
    }

    /// One follower of a run: woken when its run's feed has more, and each `idleLook`.
    struct Follower: Sendable {
        let id: UUID
        let run: Int64
        let signal: WakeSignal
    }

    private struct Feed {
        /// Rendered `package` events in index order, one after another; where each starts, and its index.
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var indices: [Int] = []
        /// The highest index rendered.
        var lastIndex = -1
        /// The run's state as last read; nil until the first read.
        var summary: RunSummary?
        /// Whether the run's end was committed since the refresher last looked.
        var endCommitted = false
        /// The last read's error, until a read succeeds.
        var failure: (any Error)?
        var followers: [UUID: Waiting] = [:]

        var needsRead: Bool { summary == nil || endCommitted || failure != nil }
    }

    /// A follower as the refresher sees it: when it was last woken, and whether it has more to take.
    private struct Waiting {
        let signal: WakeSignal
        var woken: Duration?
        var due = false
    }

    private struct State {
        var feeds: [Int64: Feed] = [:]
        var refreshing = false
    }

    /// What the journal writer files for the refresher: kept apart from the feeds, so that the writer's
    /// thread never waits for a feed's journal read.
    private struct Inbox {
        /// Followers a run, so that only followed runs' packages are filed.
        var followed: [Int64: Int] = [:]
        /// Packages committed since the refresher last looked, by run, and the runs whose end was.
        var packages: [Int64: [PicoPackage]] = [:]
        var ended: Set<Int64> = []
    }

    private let state = Mutex(State())
    private let inbox = Mutex(Inbox())
    private let journal: Journal
    /// Signalled at each commit that concerns a followed run: the refresher's wake.
    private let commits: WakeSignal
    /// Signalled when a run comes to be followed while the refresher is idle.
    private let followed: WakeSignal
    /// What paces the followers and times the refresher's looks.
    private let clock: any TimeSource

    init(
        journal: Journal,
        kept: Int = 20_000,
        pace: Duration = .milliseconds(250),
        clock: any TimeSource = SystemClock()
    ) {
        self.journal = journal
        self.kept = kept
        self.pace = pace
        self.clock = clock
        commits = WakeSignal(clock: clock)
        followed = WakeSignal(clock: clock)
    }

    /// The journal has committed `commit`: its packages and ends of followed runs go to their feeds.
    /// Called on the journal writer's thread, so it only files them in the inbox.
    func commit(_ commit: JournalCommit) {
        let concerned = inbox.withLock { inbox -> Bool in
            guard !inbox.followed.isEmpty else { return false }
            var concerned = false
            for item in commit.runPackages where inbox.followed[item.run] != nil {
                inbox.packages[item.run, default: []].append(item.package)
                concerned = true
            }
            for run in commit.endedRuns where inbox.followed[run] != nil {
                inbox.ended.insert(run)
                concerned = true
            }
            return concerned
        }
        if concerned { commits.signal() }
    }

    /// Follows `run`, waking the refresher (`run()`) if it is idle.
    func join(_ run: Int64) -> Follower {
        let follower = Follower(id: UUID(), run: run, signal: WakeSignal(clock: clock))
        // Filed before the feed's first read, so that no commit after that read is missed.
        inbox.withLock { $0.followed[run, default: 0] += 1 }
        let start = state.withLock { state -> Bool in
            state.feeds[run, default: Feed()].followers[follower.id] = Waiting(signal: follower.signal)
            defer { state.refreshing = true }
            return !state.refreshing
        }
        if start { followed.signal() }
        return follower
    }

    func leave(_ follower: Follower) {
        inbox.withLock { inbox in
            inbox.followed[follower.run, default: 1] -= 1
            if inbox.followed[follower.run] == 0 {
                inbox.followed[follower.run] = nil
                inbox.packages[follower.run] = nil
                inbox.ended.remove(follower.run)
            }
        }
        state.withLock { state in
            state.feeds[follower.run]?.followers[follower.id] = nil
            if state.feeds[follower.run]?.followers.isEmpty ?? false { state.feeds[follower.run] = nil }
        }
    }

    /// The refresher, for the feeds' lifetime (the status server runs it beside the server): idle while
    /// no run is followed, it refreshes while some are, and returns when the calling task is cancelled.
    func run() async {
        while !Task.isCancelled {
            await followed.wait()
            await refreshUntilUnfollowed()
        }
    }

    /// Refreshes at each commit, each `idleLook` and when a paced follower is due, until no run is
    /// followed (or the task is cancelled).
    private func refreshUntilUnfollowed() async {
        var lastLook = clock.now
        var wait = Self.idleLook
        while !Task.isCancelled {
            await commits.wait(upTo: wait)
            let now = clock.now
            let look = now - lastLook >= Self.idleLook
            if look { lastLook = now }
            switch refresh(wakingAll: look, now: now) {
            case .unfollowed: return
            case .read(let due): wait = min(Self.idleLook - (clock.now - lastLook), due ?? Self.idleLook)
            case .failed: wait = Self.retryAfter
            }
        }
    }

    /// What a refresh found.
    enum Refreshed: Equatable {
        /// Nothing is followed: the refresher ends.
        case unfollowed
        /// Done; the time until a follower held back by its pace is due, if one is.
        case read(due: Duration?)
        /// A read failed: the refresher tries again soon.
        case failed
    }

    /// One refresh: each feed renders what was committed (reading the journal where it must); the
    /// followers of a feed that changed (all, with `wakingAll`) are woken, each at most once a `pace`.
    @discardableResult
    func refresh(wakingAll: Bool = false, now given: Duration? = nil) -> Refreshed {
        let now = given ?? clock.now
        let filed = inbox.withLock { inbox in
            defer { (inbox.packages, inbox.ended) = ([:], []) }
            return (packages: inbox.packages, ended: inbox.ended)
        }
        let outcome = state.withLock { state -> (signals: [WakeSignal], failed: Bool, due: Duration?)? in
            if state.feeds.isEmpty {
                state.refreshing = false
                return nil
            }
            var signals: [WakeSignal] = []
            var failed = false
            var due: Duration?
            for run in Array(state.feeds.keys) {
                // Taken out while it changes, so that its events are not copied (they are the only copy).
                guard var feed = state.feeds.removeValue(forKey: run) else { continue }
                if filed.ended.contains(run) { feed.endCommitted = true }
                if update(run, &feed, committed: filed.packages[run] ?? []) {
                    for id in feed.followers.keys { feed.followers[id]?.due = true }
                }
                failed = failed || feed.failure != nil
                for (id, var waiting) in feed.followers where waiting.due || wakingAll {
                    // A wake with nothing new (a look) does not count against the pace.
                    let next = waiting.woken.map { $0 + pace } ?? now
                    if !waiting.due {
                        signals.append(waiting.signal)
                    } else if next <= now || feed.failure != nil {
                        signals.append(waiting.signal)
                        waiting.woken = now
                        waiting.due = false
                    } else {
                        due = min(due ?? Self.idleLook, next - now)  // its wake, soon, is its look too
                    }
                    feed.followers[id] = waiting
                }
                state.feeds[run] = feed
            }
            return (signals, failed, due)
        }
        guard let outcome else { return .unfollowed }
        for signal in outcome.signals { signal.signal() }
        return outcome.failed ? .failed : .read(due: outcome.due)
    }

    /// Brings `feed` up to what the journal has committed of `run`: its committed packages rendered, the
    /// journal read where they leave a gap, and the run's state read at its start and end. Whether
    /// anything changed (a failure counts: the followers must hear of it).
    private func update(_ run: Int64, _ feed: inout Feed, committed: [PicoPackage] = []) -> Bool {
        let before = (feed.lastIndex, feed.summary?.state, feed.failure == nil)
        do {
            if feed.needsRead {
                // The state before the packages: a run seen ended has every package committed already.
                feed.summary = try journal.runs(RunFilter(ids: [run])).first
                feed.endCommitted = false
                if feed.summary != nil { try readPackages(run, into: &feed) }
            }
            for package in committed where package.index > feed.lastIndex {
                if package.index > feed.lastIndex + 1 { try readPackages(run, into: &feed, before: package.index) }
                append(package, to: &feed)
            }
            feed.failure = nil
        } catch {
            feed.failure = error
        }
        trim(&feed)
        return before != (feed.lastIndex, feed.summary?.state, feed.failure == nil)
    }

    /// Reads the journal's packages of `run` after the feed's last (those below `before`, when given).
    private func readPackages(_ run: Int64, into feed: inout Feed, before: Int? = nil) throws {
        while true {
            let packages = try journal.packages(of: run, after: feed.lastIndex, limit: Self.readLimit)
            for package in packages where package.index < before ?? .max { append(package, to: &feed) }
            if packages.count < Self.readLimit || (packages.last?.index ?? 0) >= before ?? .max { return }
        }
    }

    private func append(_ package: PicoPackage, to feed: inout Feed) {
        feed.offsets.append(feed.bytes.count)
        PackageEvent.append(package, to: &feed.bytes)
        feed.indices.append(package.index)
        feed.lastIndex = package.index
    }

    /// Keeps the newest `kept` events, dropping the older ones only once there are half as many again
    /// (so that the bytes move once every `kept / 2` packages, not at each commit).
    private func trim(_ feed: inout Feed) {
        guard feed.indices.count > kept + kept / 2 else { return }
        let drop = feed.indices.count - kept
        let base = feed.offsets[drop]
        feed.bytes.removeFirst(base)
        feed.offsets = feed.offsets[drop...].map { $0 - base }
        feed.indices.removeFirst(drop)
    }

    /// The events of `run` after index `after`; nil when the journal has no such run. Throws the
    /// journal's error while its reads fail.
    func slice(run: Int64, after: Int) throws -> Slice? {
        let found = try state.withLock { state throws -> Found? in
            let followed = state.feeds[run] != nil
            var feed = state.feeds.removeValue(forKey: run) ?? Feed()
            if feed.summary == nil {
                // Never read yet (the first follower has just joined): now, not at the next commit.
                _ = update(run, &feed)
            }
            if followed { state.feeds[run] = feed }
            if let failure = feed.failure { throw failure }
            guard let summary = feed.summary else { return nil }
            if let first = feed.indices.first, after + 1 < first { return .behind(first: first) }
            let ended = summary.state == "running" ? nil : summary
            let start = Self.firstIndex(in: feed.indices, above: after)
            guard start < feed.indices.count else {
                return .slice(Slice(bytes: ByteBuffer(), last: after, end: after >= feed.lastIndex ? ended : nil))
            }
            let bytes = ByteBuffer(bytes: feed.bytes[feed.offsets[start]...])
            return .slice(Slice(bytes: bytes, last: feed.lastIndex, end: ended))
        }
        switch found {
        case nil: return nil
        case .slice(let slice): return slice
        case .behind(let first):
            // Behind what the feed keeps: from the journal, up to where the feed starts (outside the
            // lock, so that the refresher is not held up by it).
            var bytes: [UInt8] = []
            var last = after
            for package in try journal.packages(of: run, after: after, limit: Self.readLimit)
            where package.index < first {
                PackageEvent.append(package, to: &bytes)
                last = package.index
            }
            return Slice(bytes: ByteBuffer(bytes: bytes), last: last, end: nil)
        }
    }

    /// What `slice` found in the feed.
    private enum Found {
        case slice(Slice)
        /// The follower is behind the feed's first event, `first`.
        case behind(first: Int)
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
