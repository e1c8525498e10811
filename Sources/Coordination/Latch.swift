import Synchronization

/// A value given once, by the first of several parties that may give it (a signal, a timer, the work
/// running out); every waiter, before or after, gets that value.
///
/// `wait(upTo:on:)` is the one way to bound a wait: the deadline helper of every "this, or give up
/// after a while" (a cleanup that must not hold the exit up, a database operation on a connection that
/// may have died).
public final class Latch<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var nextID = 0
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
    }
    private let state = Mutex(State())

    /// A latch not yet given.
    public init() {}

    /// Gives `value` unless a value was given already; true when this call gave it.
    @discardableResult
    public func settle(_ value: Value) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>]? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: value) }
        return true
    }

    /// The value, once given.
    public var value: Value? { state.withLock { $0.value } }

    /// How many callers wait for the value now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits (without blocking a thread) for the value.
    public func wait() async -> Value {
        // Only a deadline or a cancellation ends a wait without the value, and this one has neither.
        await enqueue { _ in }!
    }

    /// Waits for the value until the calling task is cancelled (nil then).
    public func waitUnlessCancelled() async -> Value? {
        let id = WaiterID()
        return await withTaskCancellationHandler {
            await enqueue { registered in
                id.value.withLock { $0 = registered }
                if Task.isCancelled { giveUp(registered) }
            }
        } onCancel: {
            if let registered = id.value.withLock({ $0 }) { giveUp(registered) }
        }
    }

    /// Waits for the value for at most `limit` on `clock`; nil when the limit passed first or the
    /// calling task was cancelled.
    public func wait(upTo limit: Duration, on clock: any TimeSource) async -> Value? {
        let deadline = clock.now + limit
        let id = WaiterID()
        return await withTaskCancellationHandler {
            await enqueue { registered in
                id.value.withLock { $0 = registered }
                clock.wake(at: deadline) { [self] in giveUp(registered) }
                if Task.isCancelled { giveUp(registered) }
            }
        } onCancel: {
            if let registered = id.value.withLock({ $0 }) { giveUp(registered) }
        }
    }

    /// Returns the value at once if given, else keeps the waiter under a fresh id (handed to `registered`
    /// while the waiter is kept) until `settle` or `giveUp`.
    private func enqueue(_ registered: (Int) -> Void) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let outcome = state.withLock { state -> (given: Value?, id: Int?) in
                if let value = state.value { return (value, nil) }
                state.nextID += 1
                state.waiters[state.nextID] = continuation
                return (nil, state.nextID)
            }
            if let given = outcome.given {
                continuation.resume(returning: given)
            } else if let id = outcome.id {
                registered(id)
            }
        }
    }

    /// The id a bounded wait's waiter is kept under, for its cancellation handler.
    private final class WaiterID: Sendable {
        let value = Mutex<Int?>(nil)
    }

    /// Ends one waiter's wait without the value, unless it has ended already.
    private func giveUp(_ id: Int) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
    }
}
