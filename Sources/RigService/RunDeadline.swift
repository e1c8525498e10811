import Coordination
import ServiceLifecycle

/// `--for`: ends the rig once `duration` has passed, unless it shut down before.
struct RunDeadline: Service {
    let duration: Duration
    let ending: Latch<RigEnding>
    let clock: any TimeSource

    func run() async {
        try? await cancelWhenGracefulShutdown { [duration, ending, clock] in
            try await clock.sleep(for: duration)
            ending.settle(.duration)
        }
    }
}
