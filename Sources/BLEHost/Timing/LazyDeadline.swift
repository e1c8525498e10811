import Coordination
import Synchronization

/// One deadline that is armed and disarmed far more often than it expires (an HCI command's
/// timeout), on a `DeadlineAlarm`: arming costs a lock and a comparison, and the clock is asked for a
/// wake only when none is due by the new deadline.
final class LazyDeadline: Sendable {
    private struct State {
        /// The armed deadline, its token and what to call when it passes.
        var deadline: Duration?
        var token: UInt64 = 0
        var expire: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())
    private let alarm: DeadlineAlarm

    init(clock: any TimeSource = SystemClock()) {
        alarm = DeadlineAlarm(clock: clock)
    }

    /// Arms the deadline `timeout` from now (replacing one still armed); returns the token that
    /// `disarm` takes.
    func arm(after timeout: Duration, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let deadline = alarm.clock.now + timeout
        let token = state.withLock { state -> UInt64 in
            state.token &+= 1
            state.deadline = deadline
            state.expire = expire
            return state.token
        }
        alarm.wake(by: deadline) { [weak self] in self?.check() }
        return token
    }

    /// Disarms the deadline armed with `token` (nothing, if another has been armed since).
    func disarm(_ token: UInt64) {
        state.withLock { state in
            guard state.token == token else { return }
            state.deadline = nil
            state.expire = nil
        }
    }

    /// On a wake: fires the armed deadline if it has passed, or asks to be woken at it.
    private func check() {
        let now = alarm.clock.now
        let (fire, next) = state.withLock { state -> ((@Sendable () -> Void)?, Duration?) in
            guard let deadline = state.deadline else { return (nil, nil) }
            guard deadline <= now else { return (nil, deadline) }
            defer {
                state.deadline = nil
                state.expire = nil
            }
            return (state.expire, nil)
        }
        fire?()
        if let next { alarm.wake(by: next) { [weak self] in self?.check() } }
    }
}
