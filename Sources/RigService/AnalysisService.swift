import ServiceLifecycle

/// `RunAnalyses` as a service: analyses what earlier processes left, then each run as its end is
/// committed, until the rig shuts down; the devices are stopped first, so a last pass (of at most a
/// second: the rig's cleanup is bounded) analyses the runs they ended, and the next start the rest.
struct AnalysisService: Service {
    let analyses: RunAnalyses

    func run() async {
        await withGracefulShutdownHandler {
            // Passes of at most a quarter second each, so that a shutdown never waits on a long backlog.
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                if analyses.analyseWaiting(budget: .milliseconds(250)) == 0 {
                    await analyses.wait(upTo: .seconds(60))
                } else {
                    await Task.yield()
                }
            }
        } onGracefulShutdown: {
            analyses.runEnded()
        }
        if !Task.isCancelled { analyses.analyseWaiting(budget: .seconds(1)) }
    }
}
