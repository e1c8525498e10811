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
    private let logger: Logger
    private let counts = Mutex((analysed: 0, failed: 0))

    init(journal: Journal, config: RigConfig, clock: any TimeSource, logger: Logger) {
        self.journal = journal
        self.config = Mutex(config)
        self.logger = logger
        self.clock = clock
        wake = WakeSignal(clock: clock)
    }

    /// A run's end was committed.
    func runEnded() { wake.signal() }

    /// The config after a reload: its settings apply to the runs analysed from now on.
    func reloaded(_ config: RigConfig) { self.config.withLock { $0 = config } }

    /// Runs analysed, and runs whose analysis failed (the journal could not be read or written).
    var analysed: (analysed: Int, failed: Int) { counts.withLock { $0 } }

    /// Waits for the next ended run (or `timeout`).
    func wait(upTo timeout: Duration) async { await wake.wait(upTo: timeout) }

    /// Analyses every ended run without an analysis, or as many as `budget` allows (what is left waits
    /// for the next pass, or the next start); returns how many it analysed.
    @discardableResult
    func analyseWaiting(budget: Duration? = nil) -> Int {
        var done = 0
        let deadline = budget.map { clock.now + $0 }
        while true {
            let waiting: [Int64]
            do {
                waiting = try journal.runsAwaitingAnalysis()
            } catch {
                logger.error("analysis: the journal could not be read: \(error)")
                return done
            }
            guard !waiting.isEmpty else { return done }
            for run in waiting {
                if let deadline, clock.now >= deadline { return done }
                analyse(run)
                done += 1
            }
        }
    }

    private func analyse(_ run: Int64) {
        let summary = try? journal.runs(RunFilter(ids: [run])).first
        let device = summary?.device ?? "?"
        let settings = config.withLock { config -> AnalysisSettings? in
            guard let device = config.devices.first(where: { $0.name == device }) else { return config.analysis }
            return device.analysis
        }
        let stored: StoredAnalysis
        do {
            if let settings {
                stored = try JournalAnalyser.analyse(run: run, in: journal, settings: settings)
            } else {
                stored = StoredAnalysis(
                    run: run,
                    kind: .none,
                    analysedAt: Date().timeIntervalSince1970,
                    note: "the analysis is off"
                )
            }
            try journal.record(stored)
        } catch {
            counts.withLock { $0.failed += 1 }
            logger.error("analysis of run \(run) of \(device): \(error)")
            // Recorded as not analysed, so that it is not tried again at every wake.
            try? journal.record(
                StoredAnalysis(
                    run: run,
                    kind: .none,
                    analysedAt: Date().timeIntervalSince1970,
                    note: "could not be analysed: \(error)"
                )
            )
            return
        }
        counts.withLock { $0.analysed += 1 }
        if let failure = stored.results?.fitFailure {
            logger.warning(
                "run \(summary?.deviceRun ?? 0) of \(device): \(failure.circuit) not fitted: \(failure.error)"
            )
        }
    }
}
