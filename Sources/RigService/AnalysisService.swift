import Foundation
import ServiceLifecycle

/// `RunAnalyses` as a service: analyses what earlier processes left, then each run as its end is
/// committed (within a quarter second, with the others that ended meanwhile), until the rig shuts down; the devices are stopped first, so a last pass (of at most a
/// second: the rig's cleanup is bounded) analyses the runs they ended, and the next start the rest.
struct AnalysisService: Service {
    let analyses: RunAnalyses
    /// Commits what the journal's writer holds (the last runs' ends), before the last pass.
    let flush: @Sendable () async -> Void

    func run() async {
        await withGracefulShutdownHandler {
            // Passes of at most a quarter second each, so that a shutdown never waits on a long backlog.
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                if await analyses.analyseWaiting(budget: .milliseconds(250)) == 0 {
                    await analyses.wait(upTo: .seconds(60))
                    // The runs that end in the next quarter second are analysed and stored with this one:
                    // a read and a write transaction for many runs, not for each (at full rate a write
                    // transaction's sync costs more than the analysis of a run).
                    if !Task.isShuttingDownGracefully { await analyses.gather(for: .milliseconds(250)) }
                } else {
                    await Task.yield()
                }
            }
        } onGracefulShutdown: {
            analyses.wakeUp()
        }
        if !Task.isCancelled {
            await flush()
            await analyses.analyseWaiting(budget: .seconds(1))
        }
        let (analysed, failed, cpu) = analyses.analysed
        let stored = failed > 0 ? ", \(failed) could not be stored" : ""
        let kept = analyses.points.kept
        let storing = String(format: "%.3f", analyses.storingSeconds)
        analyses.logger.info(
            "analysis: \(analysed) runs analysed\(stored), \(String(format: "%.3f", cpu)) s of CPU (\(storing) s of it storing on the journal's writer), \(kept) packages kept for it as recorded"
        )
    }
}
