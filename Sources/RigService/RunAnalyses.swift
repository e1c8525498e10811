import Coordination
import Foundation
import Logging
import PicoAnalysis
import PicoLink
import RigCore
import RigJournal
import RunResults
import Synchronization

/// The rig's analysis of its runs: each run, once it has ended, analysed with its device's settings as
/// the config says now, the results stored in the journal. A run of this process is analysed from the
/// points kept as they were recorded (`RunPointCollector`) and its results stored by the journal's writer
/// after the run's end; a run whose points were let go (for their size) waits until its end is committed
/// and is read from the journal (`JournalAnalyser`), as are the runs an earlier process left. It runs on
/// `AnalysisService`'s task, never on a link's reader thread or the journal writer's, so acquisition
/// never waits for it; a run the rig could not analyse before it stopped is analysed at the next start.
final class RunAnalyses: Sendable {
    let journal: Journal
    private let writer: JournalWriter
    private let wake: WakeSignal
    private let clock: any TimeSource
    private let config: Mutex<RigConfig>
    let logger: Logger
    private let counts = Mutex((analysed: 0, failed: 0, cpuSeconds: 0.0))
    /// Runs whose end was committed since the last pass, by UUID, with their points when they were kept;
    /// and whether the runs earlier processes left have been caught up with (a scan of the journal, once).
    private let ended = Mutex((runs: [EndedRun](), caughtUp: false))
    /// The points of the runs being recorded that will be analysed.
    let points = RunPointCollector()

    /// Runs analysed and stored together, at most.
    static let batch = 128

    /// A run whose end was recorded, as it started (nil when its start was not seen), and its points
    /// when they were kept as it ran.
    private struct EndedRun {
        let uuid: UUID
        let source: RunSource?
        let points: PointTable?
    }

    /// What the analysis of a run of this process needs to know of it.
    private struct RunSource {
        let device: String
        let deviceRun: Int
        let plan: RunAnalyser.Plan
    }

    /// The runs started and not yet ended, by UUID.
    private let running = Mutex([UUID: RunSource]())
    /// Each script's plan, made once (bounded: cleared past 64 scripts).
    private let plans = Mutex([String: RunAnalyser.Plan]())

    init(journal: Journal, writer: JournalWriter, config: RigConfig, clock: any TimeSource, logger: Logger) {
        self.journal = journal
        self.writer = writer
        self.config = Mutex(config)
        self.logger = logger
        self.clock = clock
        wake = WakeSignal(clock: clock)
    }

    /// A run starts: its points are kept as they are recorded when its device's settings analyse them.
    func runStarted(_ provenance: RunProvenance) {
        let plan = plan(provenance.script)
        running.withLock { running in
            // Runs whose end never came (a journal that failed) are forgotten, not kept for ever.
            if running.count >= 1_024 { running.removeAll() }
            running[provenance.runID] = RunSource(
                device: provenance.device,
                deviceRun: provenance.deviceRun,
                plan: plan
            )
        }
        guard settings(device: provenance.device) != nil, JournalAnalyser.needsPoints(plan) else { return }
        points.begin(provenance.runID, deviceRun: provenance.deviceRun)
    }

    /// `device`'s analysis settings as the config says now (nil: its analysis is off).
    private func settings(device: String) -> AnalysisSettings? {
        config.withLock { config in
            guard let known = config.devices.first(where: { $0.name == device }) else { return config.analysis }
            return known.analysis
        }
    }

    /// A package of a run was recorded.
    func recorded(_ package: PicoPackage, run: UUID) { points.record(package, run: run) }

    /// A run's end was recorded.
    func runEnded(_ run: UUID) {
        let kept = points.ended(run)
        let source = running.withLock { $0.removeValue(forKey: run) }
        ended.withLock { $0.runs.append(EndedRun(uuid: run, source: source, points: kept)) }
        wake.signal()
    }

    /// Wakes the service (at shutdown) without a run.
    func wakeUp() { wake.signal() }

    /// The config after a reload: its settings apply to the runs analysed from now on.
    func reloaded(_ config: RigConfig) { self.config.withLock { $0 = config } }

    /// Runs analysed, runs whose analysis failed (the journal could not be read or written), and the
    /// CPU time the analysis took on its threads (journal reads and writes included, the writer's
    /// storing of the results too).
    var analysed: (analysed: Int, failed: Int, cpuSeconds: Double) {
        let storing = writer.analysisStoringSeconds
        return counts.withLock { ($0.analysed, $0.failed, $0.cpuSeconds + storing) }
    }

    /// The part of `analysed`'s CPU time the journal's writer spent storing results.
    var storingSeconds: Double { writer.analysisStoringSeconds }

    /// Waits for the next ended run (or `timeout`).
    func wait(upTo timeout: Duration) async { await wake.wait(upTo: timeout) }

    /// Lets `window` pass (on the rig's clock), for more runs to end.
    func gather(for window: Duration) async { try? await clock.sleep(until: clock.now + window) }

    /// Analyses every ended run without an analysis, or as many as `budget` allows (what is left waits
    /// for the next pass, or the next start); returns how many it analysed. The runs of this process go to
    /// the journal's writer; each batch of the others is stored in one transaction.
    @discardableResult
    func analyseWaiting(budget: Duration? = nil) async -> Int {
        var done = 0
        let deadline = budget.map { clock.now + $0 }
        while deadline.map({ clock.now < $0 }) ?? true {
            let made = measured { analyseKept() }
            if !made.isEmpty {
                for (run, analysis, json) in made {
                    do {
                        try await writer.recordAnalysis(analysis, json: json, of: run)
                        counts.withLock { $0.analysed += 1 }
                    } catch {
                        counts.withLock { $0.failed += 1 }
                        logger.error("analysis: the journal's writer could not take an analysis: \(error)")
                        return done
                    }
                }
                done += made.count
                continue
            }
            guard let count = measured({ analyseFromJournal() }), count > 0 else { return done }
            done += count
        }
        return done
    }

    /// `body`'s result, its CPU time on this thread added to the analysis's.
    private func measured<T>(_ body: () -> T) -> T {
        let before = ThreadCPUTime.seconds()
        defer {
            let spent = ThreadCPUTime.seconds() - before
            counts.withLock { $0.cpuSeconds += spent }
        }
        return body()
    }

    /// The analyses of up to `batch` ended runs of this process that need no reading of the journal (their
    /// points were kept, or they need none), with their results' JSON, for the writer (`run` is filled in
    /// there).
    private func analyseKept() -> [(UUID, StoredAnalysis, String?)] {
        let taken = ended.withLock { state -> [(EndedRun, RunSource)] in
            var taken: [(EndedRun, RunSource)] = []
            state.runs.removeAll { run in
                guard taken.count < Self.batch, let source = run.source,
                    run.points != nil || !JournalAnalyser.needsPoints(source.plan)
                        || settings(device: source.device) == nil
                else { return false }
                taken.append((run, source))
                return true
            }
            return taken
        }
        points.released(rows: taken.reduce(0) { $0 + ($1.0.points?.rowCount ?? 0) })
        let now = Date().timeIntervalSince1970
        return taken.map { run, source in
            let stored = analysis(
                of: run.points,
                plan: source.plan,
                run: (0, source.device, source.deviceRun),
                pruned: false,
                now: now
            )
            return (run.uuid, stored, stored.results?.json)
        }
    }

    /// The analysis of one run's points (`run`: its row, 0 when the writer fills it in; its device and the
    /// device's run number) with its device's settings as the config says now; a failed fit is logged.
    private func analysis(
        of points: PointTable?,
        plan: RunAnalyser.Plan,
        run: (row: Int64, device: String, deviceRun: Int),
        pruned: Bool,
        now: Double
    ) -> StoredAnalysis {
        guard let settings = settings(device: run.device) else {
            return StoredAnalysis(run: run.row, kind: .none, analysedAt: now, note: "the analysis is off")
        }
        let stored = RunAnalyser.analyse(
            points ?? PointTable(columns: []),
            plan: plan,
            run: run.row,
            settings: settings,
            now: now,
            pruned: pruned
        )
        if let failure = stored.results?.fitFailure {
            logger.warning("run \(run.deviceRun) of \(run.device): \(failure.circuit) not fitted: \(failure.error)")
        }
        return stored
    }

    /// Analyses a batch of the other runs (read from the journal, stored in one transaction); nil when the
    /// journal could not be read or written.
    private func analyseFromJournal() -> Int? {
        let analyses: [StoredAnalysis]
        do {
            let batch = try nextBatch()
            guard !batch.isEmpty else { return 0 }
            // Points kept for a run whose start this process did not see (rare) are in hand now too.
            points.released(rows: batch.reduce(0) { $0 + ($1.points?.rowCount ?? 0) })
            analyses = try analyse(batch)
        } catch {
            logger.error("analysis: the journal could not be read: \(error)")
            return nil
        }
        do {
            try journal.record(analyses)
            counts.withLock { $0.analysed += analyses.count }
        } catch {
            counts.withLock { $0.failed += analyses.count }
            logger.error("analysis: the journal could not store \(analyses.count) runs' analyses: \(error)")
            return nil
        }
        return analyses.count
    }

    /// Up to 128 runs to analyse, with their points when they were kept: first those earlier processes left
    /// (found by a scan of the journal, until none is left), then those whose end was committed since,
    /// unless analysed already.
    private func nextBatch() throws(JournalError) -> [(job: AnalysisJob, points: PointTable?)] {
        if !ended.withLock({ $0.caughtUp }) {
            let left = try journal.runsAwaitingAnalysis(limit: Self.batch)
            if !left.isEmpty { return try journal.analysisJobs(runs: left).map { ($0, nil) } }
            ended.withLock { $0.caughtUp = true }
        }
        let runs = ended.withLock { state -> [EndedRun] in
            let taken = Array(state.runs.prefix(Self.batch))
            state.runs.removeFirst(taken.count)
            return taken
        }
        guard !runs.isEmpty else { return [] }
        let jobs = try journal.analysisJobs(uuids: runs.map(\.uuid.uuidString))
        var ready: [(job: AnalysisJob, points: PointTable?)] = []
        var notYet: [EndedRun] = []
        for run in runs {
            // A run whose start or end is not committed yet waits for a commit (`committed`).
            guard let job = jobs[run.uuid.uuidString], job.ended else {
                notYet.append(run)
                continue
            }
            if !job.analysed {
                ready.append((job, run.points))
            } else {
                points.released(rows: run.points?.rowCount ?? 0)
            }
        }
        if !notYet.isEmpty { ended.withLock { $0.runs.insert(contentsOf: notYet, at: 0) } }
        return ready
    }

    /// The journal committed: runs waiting for their end to be committed may be ready.
    func committed() {
        if ended.withLock({ !$0.runs.isEmpty }) { wake.signal() }
    }

    /// The plan for `script`, made once.
    private func plan(_ script: String) -> RunAnalyser.Plan {
        if let known = plans.withLock({ $0[script] }) { return known }
        let made = RunAnalyser.plan(script: script)
        plans.withLock { plans in
            if plans.count >= 64 { plans.removeAll() }
            plans[script] = made
        }
        return made
    }

    /// The analyses of `batch`, with their devices' settings as the config says now; the points of the
    /// runs that need them and were not kept read in one transaction.
    private func analyse(_ batch: [(job: AnalysisJob, points: PointTable?)]) throws(JournalError) -> [StoredAnalysis] {
        let jobs = batch.map(\.job)
        let settings = jobs.map { self.settings(device: $0.device) }
        let plans = jobs.map { plan($0.script) }
        let reading = zip(batch, zip(plans, settings)).filter { item, planned in
            item.points == nil && planned.1 != nil && JournalAnalyser.needsPoints(planned.0)
        }.map(\.0.job.run)
        var points = try journal.points(of: reading)
        for item in batch { if let kept = item.points { points[item.job.run] = kept } }
        let now = Date().timeIntervalSince1970
        return zip(jobs, plans).map { job, plan in
            analysis(
                of: points[job.run],
                plan: plan,
                run: (job.run, job.device, job.deviceRun),
                pruned: job.pruned,
                now: now
            )
        }
    }
}
