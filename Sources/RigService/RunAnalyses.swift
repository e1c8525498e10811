import Coordination
import Foundation
import Logging
import PicoAnalysis
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
    /// Runs whose end was committed since the last pass, by UUID; and whether the runs earlier
    /// processes left have been caught up with (a scan of the journal, once).
    private let ended = Mutex((uuids: [UUID](), caughtUp: false))
    /// Each script's plan, made once (bounded: cleared past 64 scripts).
    private let plans = Mutex([String: RunAnalyser.Plan]())

    init(journal: Journal, config: RigConfig, clock: any TimeSource, logger: Logger) {
        self.journal = journal
        self.config = Mutex(config)
        self.logger = logger
        self.clock = clock
        wake = WakeSignal(clock: clock)
    }

    /// A run's end was committed.
    func runEnded(_ run: UUID) {
        ended.withLock { $0.uuids.append(run) }
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
                let jobs = try nextBatch()
                guard !jobs.isEmpty else { return done }
                analyses = try analyse(jobs)
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

    /// Up to 32 runs to analyse: first those earlier processes left (found by a scan of the journal,
    /// until none is left), then those whose end was committed since, unless analysed already.
    private func nextBatch() throws(JournalError) -> [AnalysisJob] {
        if !ended.withLock({ $0.caughtUp }) {
            let left = try journal.runsAwaitingAnalysis(limit: 32)
            if !left.isEmpty { return try journal.analysisJobs(runs: left) }
            ended.withLock { $0.caughtUp = true }
        }
        let uuids = ended.withLock { state -> [UUID] in
            let taken = Array(state.uuids.prefix(32))
            state.uuids.removeFirst(taken.count)
            return taken
        }
        guard !uuids.isEmpty else { return [] }
        let jobs = try journal.analysisJobs(uuids: uuids.map(\.uuidString))
        var ready: [AnalysisJob] = []
        var notYet: [UUID] = []
        for uuid in uuids {
            // A run whose start or end is not committed yet waits for a commit (`committed`).
            guard let job = jobs[uuid.uuidString], job.ended else {
                notYet.append(uuid)
                continue
            }
            if !job.analysed { ready.append(job) }
        }
        if !notYet.isEmpty { ended.withLock { $0.uuids.insert(contentsOf: notYet, at: 0) } }
        return ready
    }

    /// The journal committed: runs waiting for their end to be committed may be ready.
    func committed() {
        if ended.withLock({ !$0.uuids.isEmpty }) { wake.signal() }
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

    /// The analyses of `jobs`, with their devices' settings as the config says now; the points of the
    /// runs that need them read in one transaction.
    private func analyse(_ jobs: [AnalysisJob]) throws(JournalError) -> [StoredAnalysis] {
        let settings = config.withLock { config in
            jobs.map { job -> AnalysisSettings? in
                guard let device = config.devices.first(where: { $0.name == job.device }) else {
                    return config.analysis
                }
                return device.analysis
            }
        }
        let plans = jobs.map { plan($0.script) }
        let reading = zip(jobs, zip(plans, settings)).filter { job, planned in
            planned.1 != nil && JournalAnalyser.needsPoints(planned.0)
        }.map(\.0.run)
        let points = try journal.points(of: reading)
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
