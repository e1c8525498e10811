import Synchronization

/// A deadline that is armed and disarmed far more often than it expires (an HCI command's timeout),
/// served by sleeping tasks that are never cancelled. A cancelled `Task.sleep` keeps its timer, and
/// the task's memory, until the time it was asked for; a timeout per command cancelled at once
/// therefore held about 700 bytes per command for 30 s (100 MB under a flood of commands). Here a
/// sleeper is started only when no sleeper will wake up by the new deadline; on waking it fires an
/// expired deadline or hands over to a sleeper for the current one.
final class LazyDeadline: Sendable {
    private struct State {
        /// The armed deadline, its token and what to call when it passes.
        var deadline: ContinuousClock.Instant?
        var token: UInt64 = 0
        var expire: (@Sendable () -> Void)?
        /// When the earliest sleeper wakes up (nil: none sleeps).
        var sleeperWakes: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    /// Arms the deadline (replacing one still armed); returns the token that `disarm` takes.
    func arm(at deadline: ContinuousClock.Instant, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (token, startSleeper) = state.withLock { state -> (UInt64, Bool) in
            state.token &+= 1
            state.deadline = deadline
            state.expire = expire
            guard state.sleeperWakes.map({ deadline < $0 }) ?? true else { return (state.token, false) }
            state.sleeperWakes = deadline
            return (state.token, true)
        }
        if startSleeper { sleep(until: deadline) }
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

    private func sleep(until wake: ContinuousClock.Instant) {
        Task { [weak self] in
            try? await Task.sleep(until: wake, clock: .continuous)
            self?.woke(at: wake)
        }
    }

    private func woke(at wake: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        let (fire, next) = state.withLock { state -> ((@Sendable () -> Void)?, ContinuousClock.Instant?) in
            if state.sleeperWakes == wake { state.sleeperWakes = nil }
            guard let deadline = state.deadline else { return (nil, nil) }
            if deadline <= now {
                defer {
                    state.deadline = nil
                    state.expire = nil
                }
                return (state.expire, nil)
            }
            guard state.sleeperWakes.map({ deadline < $0 }) ?? true else { return (nil, nil) }
            state.sleeperWakes = deadline
            return (nil, deadline)
        }
        fire?()
        if let next { sleep(until: next) }
    }
}
