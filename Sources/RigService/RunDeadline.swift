import Coordination
import ServiceLifecycle

/// `--for`: ends the rig once `duration` has passed, unless it shut down before.
struct RunDeadline: Service {
    let duration: Duration
    let ending: Latch<RigEnding>

    func run() async {
        try? await cancelWhenGracefulShutdown { [duration, ending] in
            try await Task.sleep(for: duration)
            ending.settle(.duration)
        }
    }
}
