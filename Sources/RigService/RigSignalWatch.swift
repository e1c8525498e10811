import Coordination
import Logging
import PicoLink
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// The rig's signals, as the service that shuts down last: SIGHUP reloads the config (`reload`);
/// SIGTERM or SIGINT ends the rig cleanly. Cleanup is bounded: a second signal, or `cleanupBound`
/// passing after the first, calls `exitNow` (which reports and exits with the first signal's status).
struct RigSignalWatch: Service {
    let signals: UnixSignalsSequence
    let ending: Latch<RigEnding>
    let cleanupBound: Duration
    let clock: any TimeSource
    let reload: @Sendable () async -> Void
    let exitNow: @Sendable (StopReason, String) -> Never

    func run() async {
        await withDiscardingTaskGroup { group in
            var first: StopReason?
            for await signal in signals.cancelOnGracefulShutdown() {
                if signal == .sighup, first == nil {
                    group.addTask { await reload() }
                    continue
                }
                let reason = StopReason.signal(signal.rawValue)
                if let first { exitNow(first, "\(reason) during cleanup") }
                first = reason
                ending.settle(.signal(reason))
                group.addTask { [cleanupBound, clock, exitNow] in
                    guard (try? await clock.sleep(for: cleanupBound)) != nil else { return }
                    exitNow(reason, "cleanup took longer than \(cleanupBound)")
                }
            }
            group.cancelAll()
        }
    }
}
