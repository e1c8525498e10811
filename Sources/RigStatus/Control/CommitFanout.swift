import Coordination
import Foundation
import Synchronization

/// Tells every event stream of each journal commit: one `WakeSignal` a stream, all signalled from the
/// writer's commit observer, so that a stream reads the journal when there is something new and not
/// on a timer.
final class CommitFanout: Sendable {
    /// One stream's registration.
    struct Registration: Sendable {
        let id: UUID
        let signal: WakeSignal
    }

    private let signals = Mutex<[UUID: WakeSignal]>([:])

    func register() -> Registration {
        let registration = Registration(id: UUID(), signal: WakeSignal(clock: SystemClock()))
        signals.withLock { $0[registration.id] = registration.signal }
        return registration
    }

    func unregister(_ registration: Registration) {
        _ = signals.withLock { $0.removeValue(forKey: registration.id) }
    }

    /// A commit: every registered stream wakes.
    func committed() {
        for signal in signals.withLock({ Array($0.values) }) { signal.signal() }
    }
}
