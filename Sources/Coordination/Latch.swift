import Synchronization

/// A value given once, by the first of several parties that may give it (a signal, a timer, the work
/// running out); every waiter, before or after, gets that value.
public final class Latch<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
    }
    private let state = Mutex(State())

    /// A latch not yet given.
    public init() {}

    /// Gives `value` unless a value was given already; true when this call gave it.
    @discardableResult
    public func settle(_ value: Value) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>]? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// The value, once given.
    public var value: Value? { state.withLock { $0.value } }

    /// Waits (without blocking a thread) for the value.
    public func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let given = state.withLock { state -> Value? in
                if state.value == nil { state.waiters.append(continuation) }
                return state.value
            }
            if let given { continuation.resume(returning: given) }
        }
    }
}
