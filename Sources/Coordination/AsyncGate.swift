import Synchronization

/// A first-come, first-served gate for async callers: one holder at a time, waiters resumed in order.
/// Used for the HCI command slot, for the one LE Create Connection a controller allows at a time, and
/// for a host's creation while others wait for it.
public final class AsyncGate: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A gate nobody holds.
    public init() {}

    /// Waits (without blocking a thread) until the gate is this caller's.
    public func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.held {
                    state.waiters.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// How many callers wait for the gate now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Hands the gate to the next waiter, or leaves it free.
    public func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
