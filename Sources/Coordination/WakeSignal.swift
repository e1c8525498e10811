import Synchronization

/// Wakes one waiting task, or the next one to wait when none waits yet (a signal is never lost, and
/// several signals before a wait count once): the forwarder's new commits, the rig's ended runs.
public final class WakeSignal: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation: UInt64 = 0
    }
    private let state = Mutex(State())
    private let clock: any TimeSource

    /// A signal whose waits are bounded on `clock`.
    public init(clock: any TimeSource) { self.clock = clock }

    /// Wakes the waiting task, or the next wait.
    public func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Forgets a signal that came while no one waited: the next wait ends only at a signal that comes
    /// after this call (or at its timeout).
    public func reset() {
        state.withLock { $0.signalled = false }
    }

    /// Returns at the next signal (at once if one came since the last wait), after `timeout`, or when
    /// the task is cancelled.
    public func wait(upTo timeout: Duration) async { await wait(timeout: timeout) }

    /// Returns at the next signal (at once if one came since the last wait) or when the task is
    /// cancelled: for a waiter that something else wakes often enough, with no timer of its own.
    public func wait() async { await wait(timeout: nil) }

    private func wait(timeout: Duration?) async {
        let generation = state.withLock { state -> UInt64? in
            if state.signalled {
                state.signalled = false
                return nil
            }
            state.generation &+= 1
            return state.generation
        }
        guard let generation else { return }
        // A wake is not cancelled: one that comes after a signal finds its generation gone.
        if let timeout { clock.wake(at: clock.now + timeout) { [weak self] in self?.release(generation) } }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.generation == generation, !state.signalled, !Task.isCancelled else {
                        state.signalled = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            release(generation)
        }
        // This wait is over: its wake, when it comes, must not end the next one.
        state.withLock { state in
            if state.generation == generation { state.generation &+= 1 }
        }
    }

    private func release(_ generation: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation else { return nil }
            guard let waiter = state.waiter else {
                // The waiter has not settled yet: let it return at once (a spurious wake is harmless).
                state.signalled = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
