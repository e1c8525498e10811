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
            let batch: [Int64]
            do {
                batch = try nextBatch()
            } catch {
                logger.error("analysis: the journal could not be read: \(error)")
                return done
            }
            guard !batch.isEmpty else { return done }
            let analyses = batch.map(analyse)
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
    private func nextBatch() throws(JournalError) -> [Int64] {
        if !ended.withLock({ $0.caughtUp }) {
            let left = try journal.runsAwaitingAnalysis(limit: 32)
            if !left.isEmpty { return left }
            ended.withLock { $0.caughtUp = true }
        }
        let uuids = ended.withLock { state -> [UUID] in
            let taken = Array(state.uuids.prefix(32))
            state.uuids.removeFirst(taken.count)
            return taken
        }
        var runs: [Int64] = []
        var notYet: [UUID] = []
        for uuid in uuids {
            // (A run whose start is not committed yet is not in the journal yet.)
            guard let state = try journal.analysisState(uuid: uuid.uuidString), state.ended else {
                notYet.append(uuid)
                continue
            }
            if !state.analysed { runs.append(state.run) }
        }
        // Runs whose end is not committed yet wait for a commit (`committed`).
        if !notYet.isEmpty { ended.withLock { $0.uuids.insert(contentsOf: notYet, at: 0) } }
        return runs
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

    /// The analysis of `run`, or a `none` one saying why there is none (the analysis is off, or the
    /// journal could not be read: it is not tried again at every wake).
    private func analyse(_ run: Int64) -> StoredAnalysis {
        let owner = try? journal.device(of: run)
        let device = owner?.name ?? "?"
        let settings = config.withLock { config -> AnalysisSettings? in
            guard let device = config.devices.first(where: { $0.name == device }) else { return config.analysis }
            return device.analysis
        }
        guard let settings else {
            return StoredAnalysis(
                run: run,
                kind: .none,
                analysedAt: Date().timeIntervalSince1970,
                note: "the analysis is off"
            )
        }
        do {
            let stored = try JournalAnalyser.analyse(run: run, in: journal, settings: settings, plan: plan)
            if let failure = stored.results?.fitFailure {
                logger.warning(
                    "run \(owner?.deviceRun ?? 0) of \(device): \(failure.circuit) not fitted: \(failure.error)"
                )
            }
            return stored
        } catch {
            logger.error("analysis of run \(run) of \(device): \(error)")
            return StoredAnalysis(
                run: run,
                kind: .none,
                analysedAt: Date().timeIntervalSince1970,
                note: "could not be analysed: \(error)"
            )
        }
    }

    /// This thread's CPU time so far.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
}
