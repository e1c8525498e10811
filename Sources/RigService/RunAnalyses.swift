import Coordination
import Foundation
import Logging
import PicoAnalysis
import PicoLink
import RigCore
import RigJournal
import RunResults
import Synchronization

/// The rig's analysis of its runs: each run, once its end is committed, analysed with its device's
/// settings as the config says now (`JournalAnalyser`), the results stored in the journal. It runs on
/// `AnalysisService`'s task, never on a link's reader thread or the journal writer's, so acquisition
/// never waits for it; a run the rig could not analyse before it stopped is analysed at the next start.
final class RunAnalyses: Sendable {
    let journal: Journal
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

    /// A run whose end was recorded, and its points when they were kept as it ran.
    private struct EndedRun {
        let uuid: UUID
        let points: PointTable?
    }
    /// Each script's plan, made once (bounded: cleared past 64 scripts).
    private let plans = Mutex([String: RunAnalyser.Plan]())

    init(journal: Journal, config: RigConfig, clock: any TimeSource, logger: Logger) {
        self.journal = journal
        self.config = Mutex(config)
        self.logger = logger
        self.clock = clock
        wake = WakeSignal(clock: clock)
    }

    /// A run starts: its points are kept as they are recorded when its device's settings analyse them.
    func runStarted(_ provenance: RunProvenance) {
        let settings = config.withLock { config in
            config.devices.first { $0.name == provenance.device }.map(\.analysis) ?? config.analysis
        }
        guard settings != nil, JournalAnalyser.needsPoints(plan(provenance.script)) else { return }
        points.begin(provenance.runID, deviceRun: provenance.deviceRun)
    }

    /// A package of a run was recorded.
    func recorded(_ package: PicoPackage, run: UUID) { points.record(package, run: run) }

    /// A run's end was recorded.
    func runEnded(_ run: UUID) {
        let kept = points.ended(run)
        ended.withLock { $0.runs.append(EndedRun(uuid: run, points: kept)) }
        wake.signal()
    }

    /// Wakes the service (at shutdown) without a run.
    func wakeUp() { wake.signal() }

    /// The config after a reload: its settings apply to the runs analysed from now on.
    func reloaded(_ config: RigConfig) { self.config.withLock { $0 = config } }

    /// Runs analysed, runs whose analysis failed (the journal could not be read or written), and the
    /// CPU time the analysis took on its threads (journal reads and writes included).
    var analysed: (analysed: Int, failed: Int, cpuSeconds: Double) { counts.withLock { $0 } }

    /// Waits for the next ended run (or `timeout`).
    func wait(upTo timeout: Duration) async { await wake.wait(upTo: timeout) }

    /// Lets `window` pass (on the rig's clock), for more runs to end.
    func gather(for window: Duration) async { try? await clock.sleep(until: clock.now + window) }

    /// Analyses every ended run without an analysis, or as many as `budget` allows (what is left waits
    /// for the next pass, or the next start); returns how many it analysed. Each batch of runs is
    /// stored in one transaction.
    @discardableResult
    func analyseWaiting(budget: Duration? = nil) -> Int {
        let cpuBefore = Self.threadCPUSeconds()
        defer {
            let spent = Self.threadCPUSeconds() - cpuBefore
            counts.withLock { $0.cpuSeconds += spent }
        }
        var done = 0
        let deadline = budget.map { clock.now + $0 }
        while deadline.map({ clock.now < $0 }) ?? true {
            let analyses: [StoredAnalysis]
            do {
                let batch = try nextBatch()
                guard !batch.isEmpty else { return done }
                // The kept points are in hand: no longer counted against what the collector may hold.
                points.released(rows: batch.reduce(0) { $0 + ($1.points?.rowCount ?? 0) })
                analyses = try analyse(batch)
            } catch {
                logger.error("analysis: the journal could not be read: \(error)")
                return done
            }
            do {
                try journal.record(analyses)
                counts.withLock { $0.analysed += analyses.count }
            } catch {
                counts.withLock { $0.failed += analyses.count }
                logger.error("analysis: the journal could not store \(analyses.count) runs' analyses: \(error)")
                return done
            }
            done += analyses.count
        }
        return done
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
        let settings = config.withLock { config in
            jobs.map { job -> AnalysisSettings? in
                guard let device = config.devices.first(where: { $0.name == job.device }) else {
                    return config.analysis
                }
                return device.analysis
            }
        }
        let plans = jobs.map { plan($0.script) }
        let reading = zip(batch, zip(plans, settings)).filter { item, planned in
            item.points == nil && planned.1 != nil && JournalAnalyser.needsPoints(planned.0)
        }.map(\.0.job.run)
        var points = try journal.points(of: reading)
        for item in batch { if let kept = item.points { points[item.job.run] = kept } }
        let now = Date().timeIntervalSince1970
        return zip(jobs, zip(plans, settings)).map { job, planned in
            let (plan, settings) = planned
            guard let settings else {
                return StoredAnalysis(run: job.run, kind: .none, analysedAt: now, note: "the analysis is off")
            }
            let stored = RunAnalyser.analyse(
                points[job.run] ?? PointTable(columns: []),
                plan: plan,
                run: job.run,
                settings: settings,
                now: now,
                pruned: job.pruned
            )
            if let failure = stored.results?.fitFailure {
                logger.warning("run \(job.deviceRun) of \(job.device): \(failure.circuit) not fitted: \(failure.error)")
            }
            return stored
        }
    }

    /// This thread's CPU time so far.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
}
