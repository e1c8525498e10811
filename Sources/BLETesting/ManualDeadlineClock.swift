public import BLEHost
import Synchronization

/// A `DeadlineClock` that moves only when told: `advance(by:)` moves time and runs every wake that
/// has come due, earliest first, so a test can pass the 30 s ATT timeout without waiting.
public final class ManualDeadlineClock: DeadlineClock, Sendable {
    private let state = Mutex(State())

    private struct State {
        var now: Duration = .zero
        var wakes: [(deadline: Duration, body: @Sendable () -> Void)] = []
    }

    /// A clock at time zero with nothing due.
    public init() {}

    /// The time `advance(by:)` has moved to.
    public var now: Duration { state.withLock { $0.now } }

    /// How many wakes are asked for and not yet due.
    public var pendingWakes: Int { state.withLock { $0.wakes.count } }

    /// When the wakes asked for and not yet due will come, earliest first.
    public var pendingDeadlines: [Duration] { state.withLock { $0.wakes.map(\.deadline).sorted() } }

    /// Keeps `body` until `advance(by:)` passes `deadline` (runs it at once if that has passed).
    public func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void) {
        let due = state.withLock { state -> Bool in
            guard deadline > state.now else { return true }
            state.wakes.append((deadline, body))
            return false
        }
        if due { body() }
    }

    /// Moves time forward and runs, earliest first, every wake that has come due (and any that those
    /// ask for within the new time).
    public func advance(by duration: Duration) {
        state.withLock { $0.now += duration }
        while let body = nextDue() { body() }
    }

    private func nextDue() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard let index = state.wakes.indices.min(by: { state.wakes[$0].deadline < state.wakes[$1].deadline }),
                state.wakes[index].deadline <= state.now
            else { return nil }
            return state.wakes.remove(at: index).body
        }
    }
}
