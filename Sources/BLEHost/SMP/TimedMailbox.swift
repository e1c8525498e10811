import Coordination
import Synchronization

/// A queue filled by the transport's reader thread and drained by one waiting task, each wait bounded.
/// Holds at most `limit` items; a peer that sends more than a pairing can use loses the oldest.
final class TimedMailbox<Item: Sendable>: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Item?, Never>
    }

    private struct State {
        var items: [Item] = []
        var waiter: Waiter?
        var nextID: UInt64 = 0
        /// The newest wait whose time ran out before its waiter was in place (a clock may wake at
        /// once, or before `next` gets to the lock): that wait must not be left to park.
        var expiredBeforeWaiting: UInt64 = 0
    }

    private let state = Mutex(State())
    private let limit: Int
    private let clock: any TimeSource

    init(limit: Int = 16, clock: any TimeSource) {
        self.limit = limit
        self.clock = clock
    }

    /// Hands `item` to the waiting task, or keeps it for the next `next`.
    func push(_ item: Item) {
        let waiter = state.withLock { state -> Waiter? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            if state.items.count == limit { state.items.removeFirst() }
            state.items.append(item)
            return nil
        }
        waiter?.continuation.resume(returning: item)
    }

    /// Forgets what is queued.
    func clear() { state.withLock { $0.items.removeAll() } }

    /// The oldest item, waiting up to `timeout`; nil when none came in time.
    func next(timeout: Duration) async -> Item? {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        clock.wake(at: clock.now + timeout) { [weak self] in self?.expire(id) }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Item?? in
                if !state.items.isEmpty { return .some(state.items.removeFirst()) }
                if state.expiredBeforeWaiting == id { return .some(nil) }
                state.waiter = Waiter(id: id, continuation: continuation)
                return .none
            }
            if case .some(let item) = ready { continuation.resume(returning: item) }
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else {
                if state.waiter == nil { state.expiredBeforeWaiting = max(state.expiredBeforeWaiting, id) }
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.continuation.resume(returning: nil)
    }
}
