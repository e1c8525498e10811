import Coordination
import Synchronization

/// Wakes its owner at its deadlines with as few clock wakes as possible: `wake(by:_:)` asks the clock
/// for a wake only when none is due by then, so a deadline armed and disarmed per request (an ATT
/// transaction, an HCI command) costs a lock and a comparison, and a busy link one wake per timeout
/// period. On each wake the owner checks what has expired and arms the next deadline it still has.
package struct DeadlineAlarm: Sendable {
    package let clock: any TimeSource
    /// When the wakes asked of the clock and not yet run are due.
    private let pending = PendingWakes()

    package init(clock: any TimeSource) {
        self.clock = clock
    }

    /// Makes sure `check` runs at `deadline` or soon after (outside any lock of the alarm). The owner
    /// passes the same check every time: a wake already due earlier runs the check it was given.
    package func wake(by deadline: Duration, _ check: @escaping @Sendable () -> Void) {
        guard pending.claim(deadline) else { return }
        let pending = pending
        clock.wake(at: deadline) {
            pending.release(deadline)
            check()
        }
    }

    /// Each new wake is earlier than every pending one, so the list stays short: a wake is added only
    /// when deadlines come closer, and leaves when it runs.
    private final class PendingWakes: Sendable {
        private let due = Mutex<[Duration]>([])

        /// True when no wake is due by `deadline`: the caller asks the clock for one.
        func claim(_ deadline: Duration) -> Bool {
            due.withLock { due in
                if let earliest = due.last, earliest <= deadline { return false }
                due.append(deadline)
                return true
            }
        }

        func release(_ deadline: Duration) {
            due.withLock { due in
                if let index = due.lastIndex(of: deadline) { due.remove(at: index) }
            }
        }
    }
}
