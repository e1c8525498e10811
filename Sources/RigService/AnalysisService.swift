import ServiceLifecycle

/// `RunAnalyses` as a service: analyses what earlier processes left, then each run as its end is
/// committed, until the rig shuts down; the devices are stopped first, so a last pass analyses the runs
/// they ended.
struct AnalysisService: Service {
    let analyses: RunAnalyses

    func run() async {
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                analyses.analyseWaiting()
                await analyses.wait(upTo: .seconds(60))
            }
        } onGracefulShutdown: {
            analyses.runEnded()
        }
        if !Task.isCancelled { analyses.analyseWaiting() }
    }
}
