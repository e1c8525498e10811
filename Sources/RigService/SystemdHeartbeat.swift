import Coordination
import RigCore
import RigJournal
import ServiceLifecycle

/// Under systemd: a STATUS line every so often, with a WATCHDOG ping as long as the journal keeps
/// committing (a writer that failed or has been behind for 10 s gets no ping, so systemd restarts
/// the rig); every half `WatchdogSec=`, or every 10 s without a watchdog. Quiet once the rig ends.
struct SystemdHeartbeat: Service {
    let notifier: ServiceNotifier
    let rig: Rig
    let writer: JournalWriter
    let ending: Latch<RigEnding>
    let clock: any TimeSource

    func run() async {
        let interval = notifier.watchdogInterval ?? .seconds(10)
        await cancelWhenGracefulShutdown { [self] in
            while (try? await clock.sleep(for: interval)) != nil, ending.value == nil {
                let stalled = writer.stalledFor
                if let failure = writer.failed {
                    notifier.status("journal failed: \(failure)")
                } else if stalled >= 10 {
                    notifier.status("journal stalled for \(Int(stalled)) s")
                } else {
                    notifier.alive(status: RigStatusLine.text(rig, writer: writer))
                }
            }
        }
    }
}
