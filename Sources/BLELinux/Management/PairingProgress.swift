import BLEHost
import Coordination
import Synchronization

/// How far the kernel's pairing with one device has come, as the management events tell it, and a
/// wait for the next step. The kernel raises a link's security level when encryption starts, but
/// reports the new keys only after the key distribution that follows; a program that checks for keys
/// (or stops listening) the moment the link is encrypted can miss them.
final class PairingProgress: Sendable {
    /// What the events have said so far.
    struct Snapshot: Sendable, Equatable {
        /// New Long Term Keys reported for the device.
        var keys = 0
        /// Pairings the kernel reported as failed.
        var failures = 0
        /// A question of the kernel's was answered and neither a key nor a failure has come since: a
        /// pairing is under way.
        var underWay = false
    }

    private struct State {
        var snapshot = Snapshot()
        var waiter: (condition: @Sendable (Snapshot) -> Bool, continuation: CheckedContinuation<Void, Never>)?
        var generation: UInt64 = 0
    }
    private let state = Mutex(State())
    private let clock: any TimeSource

    /// Progress with nothing reported yet; waits time out on `clock`.
    init(clock: any TimeSource = SystemClock()) { self.clock = clock }

    var snapshot: Snapshot { state.withLock { $0.snapshot } }

    /// Whether a wait is parked for an event.
    var isWaiting: Bool { state.withLock { $0.waiter != nil } }

    /// The kernel asked about the pairing and was answered.
    func answered() { change { $0.underWay = true } }

    /// The kernel reported a new key for the device.
    func keyArrived() {
        change {
            $0.keys += 1
            $0.underWay = false
        }
    }

    /// The kernel reported that the pairing failed.
    func failed() {
        change {
            $0.failures += 1
            $0.underWay = false
        }
    }

    /// Returns once `condition` holds (at once if it does already), after `timeout`, or when the task
    /// is cancelled; gives what is known then. One waiter at a time.
    func wait(upTo timeout: Duration, until condition: @escaping @Sendable (Snapshot) -> Bool) async -> Snapshot {
        let generation = state.withLock { state -> UInt64? in
            guard !condition(state.snapshot) else { return nil }
            state.generation &+= 1
            return state.generation
        }
        guard let generation else { return snapshot }
        // A wake of the clock; it ends this wait only, so one that comes after it is harmless.
        clock.wake(at: clock.now + timeout) { [weak self] in self?.release(generation) }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.generation == generation, !condition(state.snapshot), !Task.isCancelled else {
                        return true
                    }
                    state.waiter = (condition, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            release(generation)
        }
        return snapshot
    }

    private func change(_ update: (inout Snapshot) -> Void) {
        let ready = state.withLock { state -> CheckedContinuation<Void, Never>? in
            update(&state.snapshot)
            guard let waiter = state.waiter, waiter.condition(state.snapshot) else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        ready?.resume()
    }

    /// Ends the wait of `generation` (its timeout or its cancellation); a later wait is left alone.
    private func release(_ generation: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation, let waiter = state.waiter else {
                // Not parked yet: bumping the generation makes it return as soon as it looks.
                if state.generation == generation { state.generation &+= 1 }
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }
}
