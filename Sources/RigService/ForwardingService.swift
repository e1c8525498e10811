import Coordination
import RigForward
import ServiceLifecycle

/// The forwarder to PostgreSQL as a service: forwards until the rig shuts down, then for up to
/// `patience` more to send the last commits (what is left waits in the journal for the next start).
struct ForwardingService: Service {
    let forwarder: PostgresForwarder
    let patience: Duration
    let clock: any TimeSource

    private enum Event { case forwarderEnded, shutdown, cancelled, patienceOut }

    func run() async {
        await withTaskGroup(of: Event.self) { group in
            group.addTask { [forwarder] in
                await forwarder.run()
                return .forwarderEnded
            }
            group.addTask { (try? await gracefulShutdown()) == nil ? .cancelled : .shutdown }
            guard await group.next() == .shutdown else {
                group.cancelAll()
                return
            }
            forwarder.drain()
            group.addTask { [patience, clock] in
                guard (try? await clock.sleep(for: patience)) != nil else { return .cancelled }
                return .patienceOut
            }
            let first = await group.next()
            group.cancelAll()
            if first == .patienceOut { await forwarder.abandon() }
        }
    }
}
