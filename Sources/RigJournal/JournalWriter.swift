import Coordination
import Foundation
import GRDB
import PicoLink
public import RigModel
public import RunResults

/// The journal's one writer: producers append runs, packages and run ends from any task; a dedicated
/// thread commits what is pending in one transaction at most `commitInterval` after the oldest of it
/// arrived (group commit), so throughput does not depend on fsync latency. A package counts as
/// recorded only once `record` has returned after its commit — callers that need that await `flush()`.
///
/// Appending never blocks a thread: past `pendingLimit` operations, producers suspend until the next
/// commit. After a failed transaction the writer is failed for good: every waiting and later call
/// throws `JournalError.writeFailed`, and nothing after the last successful commit is recorded.
public final class JournalWriter: @unchecked Sendable {
    public let commitInterval: Double
    public let pendingLimit: Int
    /// The most operations one transaction holds.
    static let batchLimit = 20_000
    private let database: DatabasePool
    /// Guards everything below; also wakes the commit thread.
    private let condition = MonotonicCondition()
    private var pending: [JournalOperation] = []
    private var oldestPendingAt: Double?
    /// When the transaction in progress began (nil between commits).
    private var commitStartedAt: Double?
    private var appended: UInt64 = 0
    private var committed: UInt64 = 0
    /// Operations whose commit the observers have heard of (`onCommit`): what `flush` and the waits
    /// for a commit wait for, so that a caller may count on what the observers did with it.
    private var observed: UInt64 = 0
    private var packagesCommitted = 0
    private var failure: JournalError?
    private var closing = false
    private var flushRequested = false
    private var waiters: [(sequence: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var commitObservers: [@Sendable (JournalCommit) -> Void] = []
    private let stopped = DispatchSemaphore(value: 0)
    /// Touched by the commit thread only: the rows of the runs started and not ended, and of the last
    /// runs ended (oldest first), for their analyses.
    private var runRows: [UUID: Int64] = [:]
    private var endedRunRows: [UUID: Int64] = [:]
    private var endedRunOrder: [UUID] = []
    /// CPU time the commit thread spent storing analyses (guarded by `condition`).
    private var analysisStoringCPU = 0.0
    /// Each device's highest run number handed out or in the journal, once asked for.
    private var lastRunNumbers: [String: Int] = [:]
    /// Checkpoints off the commit thread, asked for after every commit.
    private let checkpointer: JournalCheckpointer

    init(database: DatabasePool, commitInterval: Double, pendingLimit: Int) {
        self.database = database
        self.commitInterval = commitInterval
        self.pendingLimit = pendingLimit
        checkpointer = JournalCheckpointer(path: database.path)
        // The writer connection never checkpoints inside a commit; the checkpointer does it beside.
        try? database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        Threads.start(name: "journal-writer") { [self] in commitLoop() }
    }

    /// Calls `observer` on the commit thread after every commit (keep it short).
    public func onCommit(_ observer: @escaping @Sendable (JournalCommit) -> Void) {
        locked { commitObservers.append(observer) }
    }

    /// The number of `device`'s next run: one past the highest in the journal or handed out by this
    /// writer, so that a device's run numbers never repeat within a journal, across restarts and reloads.
    public func nextRunNumber(device: String) throws(JournalError) -> Int {
        if let next = locked({ () -> Int? in
            guard let last = lastRunNumbers[device] else { return nil }
            lastRunNumbers[device] = last + 1
            return last + 1
        }) {
            return next
        }
        let recorded: Int
        do {
            recorded = try database.read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT COALESCE(MAX(r.device_run), 0) FROM runs r JOIN devices d ON d.id = r.device_id
                        WHERE d.name = ?
                        """,
                    arguments: [device]
                ) ?? 0
            }
        } catch {
            throw .writeFailed("cannot read \(device)'s last run number: \(error)")
        }
        return locked {
            let next = max(lastRunNumbers[device] ?? 0, recorded) + 1
            lastRunNumbers[device] = next
            return next
        }
    }

    /// Records that a run started, with its provenance; its state is `running` until `runEnded`.
    public func runStarted(_ provenance: RunProvenance) async throws(JournalError) {
        try await append(.runStarted(provenance))
    }

    /// Appends a package of a started run.
    public func record(_ package: PicoPackage, run: UUID) async throws(JournalError) {
        try await append(.package(run: run, package))
    }

    /// Appends a package of a started run without waiting: returns nil, or — when the queue of
    /// uncommitted operations is past its limit — the operation whose commit to wait for
    /// (`waitForCommit(of:)`) before the next append, as `record` waits.
    public func enqueue(_ package: PicoPackage, run: UUID) throws(JournalError) -> UInt64? {
        try enqueue(.package(run: run, package))
    }

    /// Returns once operation `sequence` (as `enqueue` returned it) is committed.
    public func waitForCommit(of sequence: UInt64) async throws(JournalError) {
        try await wait(for: sequence)
    }

    /// Closes a run as complete or incomplete, with its reason.
    public func runEnded(_ run: UUID, _ end: JournalRunEnd) async throws(JournalError) {
        try await append(.runEnded(run: run, end))
    }

    /// A run request as it now stands (`run_requests`).
    public func requestChanged(_ request: RunRequest) async throws(JournalError) {
        try await append(.request(request))
    }

    /// A control action (`control_actions`).
    public func controlAction(_ action: ControlAction) async throws(JournalError) {
        try await append(.controlAction(action))
    }

    /// Stores the analysis of a run appended before (its `run` field is ignored), replacing an earlier one;
    /// `json` is its results as JSON. Committed with the writer's next transaction, after the run's end.
    public func recordAnalysis(_ analysis: StoredAnalysis, json: String?, of run: UUID) async throws(JournalError) {
        try await append(.analysis(run: run, analysis, json: json))
    }

    /// CPU seconds the commit thread has spent storing analyses.
    public var analysisStoringSeconds: Double { locked { analysisStoringCPU } }

    /// Returns once everything appended before the call is committed.
    public func flush() async throws(JournalError) {
        let target: UInt64? = try locked { () throws(JournalError) -> UInt64? in
            if let failure { throw failure }
            guard observed < appended else { return nil }
            flushRequested = true
            condition.signal()
            return appended
        }
        if let target { try await wait(for: target) }
    }

    /// Operations committed so far (every operation up to this sequence number is on disk).
    public var committedSequence: UInt64 { locked { committed } }

    /// How long the oldest operation not yet committed has waited, in seconds (0 when nothing waits):
    /// a writer that stays behind for long (a hung disk) is not healthy, whatever it has committed.
    public var stalledFor: Double {
        locked {
            let now = Self.now()
            return max(0, now - (oldestPendingAt ?? now), now - (commitStartedAt ?? now))
        }
    }

    /// Checkpoints run beside the writer so far, and the last one's failure (for tests and the status).
    var checkpointsRun: Int { checkpointer.checkpoints }
    var checkpointFailure: String? { checkpointer.lastFailure }

    /// Packages committed by this writer so far: durable, whatever happens next.
    public var committedPackages: Int { locked { packagesCommitted } }

    /// The failure that stopped the writer, if one did.
    public var failed: JournalError? { locked { failure } }

    /// Commits what is pending and stops the thread. Later appends throw `.closed`.
    public func close() async {
        let alreadyClosing = locked { () -> Bool in
            defer {
                closing = true
                condition.signal()
            }
            return closing
        }
        guard !alreadyClosing else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [stopped] in
                stopped.wait()
                done.resume()
            }
        }
    }

    private func append(_ operation: JournalOperation) async throws(JournalError) {
        if let waitFor = try enqueue(operation) { try await wait(for: waitFor) }
    }

    private func enqueue(_ operation: JournalOperation) throws(JournalError) -> UInt64? {
        try locked { () throws(JournalError) -> UInt64? in
            if let failure { throw failure }
            if closing { throw .closed }
            pending.append(operation)
            appended += 1
            if oldestPendingAt == nil {
                oldestPendingAt = Self.now()
                condition.signal()
            }
            return pending.count > pendingLimit ? appended - UInt64(pendingLimit) : nil
        }
    }

    private func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    private func wait(for sequence: UInt64) async throws(JournalError) {
        do {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                condition.lock()
                if let failure {
                    condition.unlock()
                    continuation.resume(throwing: failure)
                } else if observed >= sequence {
                    condition.unlock()
                    continuation.resume()
                } else {
                    waiters.append((sequence, continuation))
                    condition.unlock()
                }
            }
        } catch let error as JournalError {
            throw error
        } catch {
            throw .writeFailed("\(error)")
        }
    }

    // MARK: The commit thread

    private func commitLoop() {
        // What a commit costs — a fixed part (the fsyncs) and a part per operation — learned from the
        // commits so far (small ones teach the fixed part, large ones the rest; the priors are this
        // machine class's order of magnitude): a transaction starts early enough to have *committed* by
        // `commitInterval` after its oldest operation, however many operations it holds.
        var fixedCost = 0.005
        var costPerOperation = 3e-6
        while true {
            condition.lock()
            while pending.isEmpty && !closing { condition.wait() }
            while !pending.isEmpty && !closing && !flushRequested && pending.count < Self.batchLimit,
                let oldest = oldestPendingAt
            {
                let now = Self.now()
                let startBy = oldest + commitInterval * 0.8 - fixedCost - costPerOperation * Double(pending.count)
                if now >= startBy { break }
                // Woken at least every 5 ms: the pending count, and so the start time, moves on.
                condition.wait(seconds: min(startBy - now, 0.005))
            }
            // At most `batchLimit` operations per transaction, so that a writer that fell behind still
            // commits often; what is left keeps its (older) waiting time and goes next, at once.
            let taken = min(pending.count, Self.batchLimit)
            let batch = Array(pending.prefix(taken))
            let sequence = appended - UInt64(pending.count - taken)
            let batchSince = oldestPendingAt
            pending.removeFirst(taken)
            if pending.isEmpty { oldestPendingAt = nil }
            flushRequested = false
            let finish = closing && batch.isEmpty
            let failedAlready = failure != nil
            if !batch.isEmpty && !failedAlready { commitStartedAt = batchSince ?? Self.now() }
            condition.unlock()
            if finish || failedAlready {
                if finish || closing { break }
                continue
            }
            let started = Self.now()
            commit(batch, sequence: sequence)
            let duration = Self.now() - started
            if batch.count < 1000 {
                fixedCost = 0.5 * fixedCost + 0.5 * duration
            } else {
                let perOperation = max(0, duration - fixedCost) / Double(batch.count)
                costPerOperation = 0.5 * costPerOperation + 0.5 * perOperation
            }
        }
        checkpointer.stop()
        stopped.signal()
    }

    private func commit(_ batch: [JournalOperation], sequence: UInt64) {
        let started = Self.now()
        var packages = 0
        var values = 0
        var oldestHostTime: Double?
        var failure: JournalError?
        var storingCPU = 0.0
        // The rows of the runs this commit's packages belong to (one entry a run, not a package).
        var packageRuns: [UUID: Int64] = [:]
        var lastPackageRun: UUID?
        var endedRuns: [Int64] = []
        do {
            try database.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    var counts: [Int64: Int] = [:]
                    var inserts = try JournalBulkInsert(db)
                    for operation in batch {
                        switch operation {
                        case .runStarted(let provenance):
                            runRows[provenance.runID] = try JournalStatements.insertRun(provenance, db)
                        case .package(let run, let package):
                            guard let row = runRows[run] else { throw JournalError.unknownRun(run.uuidString) }
                            try inserts.add(package, run: row)
                            if run != lastPackageRun {
                                packageRuns[run] = row
                                lastPackageRun = run
                            }
                            counts[row, default: 0] += 1
                            packages += 1
                            values += package.values.count
                            oldestHostTime = min(oldestHostTime ?? package.hostTime, package.hostTime)
                        case .runEnded(let run, let end):
                            guard let row = runRows[run] else { throw JournalError.unknownRun(run.uuidString) }
                            if let count = counts.removeValue(forKey: row) {
                                try JournalStatements.addPackages(count, run: row, db)
                            }
                            try JournalStatements.endRun(end, run: row, db)
                            endedRuns.append(row)
                            runRows[run] = nil
                            endedRunRows[run] = row
                            endedRunOrder.append(run)
                            if endedRunOrder.count > 4_096 {
                                for old in endedRunOrder.prefix(1_024) { endedRunRows[old] = nil }
                                endedRunOrder.removeFirst(1_024)
                            }
                        case .analysis(let run, let analysis, let json):
                            let before = ThreadCPUTime.seconds()
                            guard
                                let row = try runRows[run] ?? endedRunRows[run]
                                    ?? Int64.fetchOne(
                                        db,
                                        sql: "SELECT id FROM runs WHERE uuid = ?",
                                        arguments: [run.uuidString.lowercased()]
                                    )
                            else { throw JournalError.unknownRun(run.uuidString) }
                            var stored = analysis
                            stored.run = row
                            try Journal.store(stored, json: json, db)
                            storingCPU += ThreadCPUTime.seconds() - before
                        case .request(let request):
                            try JournalStatements.upsertRequest(request, db)
                        case .controlAction(let action):
                            try JournalStatements.insertControlAction(action, db)
                        }
                    }
                    try inserts.finish()
                    for (row, count) in counts { try JournalStatements.addPackages(count, run: row, db) }
                    return .commit
                }
            }
        } catch let error as JournalError {
            failure = error
        } catch {
            failure = .writeFailed("\(error)")
        }
        condition.lock()
        commitStartedAt = nil
        let observers = commitObservers
        if let failure {
            self.failure = failure
            let failed = waiters.map(\.continuation)
            waiters.removeAll()
            condition.unlock()
            for continuation in failed { continuation.resume(throwing: failure) }
            return
        }
        committed = sequence
        packagesCommitted += packages
        analysisStoringCPU += storingCPU
        condition.unlock()
        // The observers hear of the commit before a wait for it returns (`flush`, `record`): what a
        // flush waited for has been observed once it returns, even when the commit came before the flush.
        defer {
            condition.lock()
            observed = sequence
            let ready = waiters.filter { $0.sequence <= sequence }.map(\.continuation)
            waiters.removeAll { $0.sequence <= sequence }
            condition.unlock()
            for continuation in ready { continuation.resume() }
        }
        let finished = Self.now()
        let committedAt = Date().timeIntervalSince1970
        checkpointer.request()
        var report = JournalCommit(
            sequence: sequence,
            packages: packages,
            values: values,
            duration: finished - started,
            oldestHostTime: oldestHostTime,
            committedAt: committedAt,
            endedRuns: endedRuns
        )
        report.operations = batch
        report.runRows = packageRuns
        for observer in observers { observer(report) }
    }

    /// The writer's timing (waits, commit durations, `stalledFor`) is on the monotonic clock: a wall
    /// clock set back would hold commits, and one set forward would report a stall that is none.
    static func now() -> Double { MonotonicCondition.now() }
}
