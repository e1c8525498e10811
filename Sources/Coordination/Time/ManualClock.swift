import Synchronization

/// A clock whose time moves only when it is told to: `advance(by:)` and `advance(to:)` move it and
/// run every wake and end every sleep that has come due, earliest first. Tests inject it so that
/// timeouts, backoff and schedules pass without waiting.
///
/// Made with `skipsIdleTime`, a sleep or a block moves the clock to its deadline at once instead:
/// the time of a discrete-event simulation, in which a 10-minute script runs as fast as it can be
/// computed and keeps the timestamps it would have had in real time. Wakes still wait to be passed.
public final class ManualClock: TimeSource, Sendable {
    private struct Entry {
        let id: Int
        var deadline: Duration
        /// For a sleep until a wall-clock time: that time, which moves `deadline` when the wall clock is set.
        let wallTarget: Double?
        let body: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var wallOffset: Double
        var nextID = 0
        var entries: [Entry] = []

        /// Moves `now` forward to `time` (never back); whether anything has come due.
        mutating func move(to time: Duration) -> Bool {
            now = max(now, time)
            return entries.contains { $0.deadline <= now }
        }
    }

    private let state: Mutex<State>
    /// Whether a sleep or a block moves the clock to its deadline (see the type's description).
    public let skipsIdleTime: Bool

    /// A clock at `now == .zero` whose wall clock reads `wallTime` (by default a moment of 2026), with
    /// nothing due.
    public init(wallTime: Double = 1_795_600_000, skipsIdleTime: Bool = false) {
        state = Mutex(State(wallOffset: wallTime))
        self.skipsIdleTime = skipsIdleTime
    }

    /// The time the clock has been moved to.
    public var now: Duration { state.withLock { $0.now } }

    /// The wall clock: where it was set, plus the time moved since.
    public var wallTime: Double { state.withLock { $0.wallOffset + $0.now.inSeconds } }

    /// How many wakes and sleeps are waiting for their deadline.
    public var pendingWakes: Int { state.withLock { $0.entries.count } }

    /// When the waiting wakes and sleeps come due, earliest first.
    public var pendingDeadlines: [Duration] { state.withLock { $0.entries.map(\.deadline).sorted() } }

    /// Keeps `body` until the clock passes `deadline` (runs it at once if that has passed).
    public func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void) {
        if add(deadline, body) == nil { body() }
    }

    /// Returns once the clock has been moved to `deadline` (at once with `skipsIdleTime`, which moves
    /// it there), or throws `CancellationError` once the calling task is cancelled.
    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        if skipsIdleTime { return advance(to: deadline) }
        try await waitForEntry(deadline: deadline, wallTarget: nil)
    }

    /// Returns once the wall clock reads `target`, exactly: moving the clock or setting the wall clock
    /// (`setWallTime(_:)`) past it ends the sleep.
    public func sleep(untilWallTime target: Double) async throws {
        try Task.checkCancellation()
        let deadline = state.withLock { $0.now + .seconds(target - ($0.wallOffset + $0.now.inSeconds)) }
        if skipsIdleTime { return advance(to: deadline) }
        try await waitForEntry(deadline: deadline, wallTarget: target)
    }

    private func waitForEntry(deadline: Duration, wallTarget: Double?) async throws {
        let waiter = SleepWaiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiter.hold(continuation)
                let entry = add(deadline, wallTarget: wallTarget) { waiter.wake() }
                if let entry { waiter.entry.withLock { $0 = entry } } else { waiter.wake() }
                if Task.isCancelled { cancel(waiter) }
            }
        } onCancel: {
            cancel(waiter)
        }
    }

    /// Blocks until the clock has been moved to `deadline` or `cancelled()` is true (asked every
    /// millisecond); with `skipsIdleTime`, moves the clock there and returns.
    public func block(until deadline: Duration, unless cancelled: () -> Bool) {
        if skipsIdleTime {
            advance(to: deadline)
        } else {
            blockUntilWoken(deadline, unless: cancelled)
        }
    }

    /// Moves the clock forward by `duration` and runs, earliest first, every wake that has come due
    /// (and any that those ask for within the new time).
    public func advance(by duration: Duration) {
        if state.withLock({ $0.move(to: $0.now + duration) }) { runDue() }
    }

    /// Moves the clock forward to `time` (never back), then runs what came due as `advance(by:)` does.
    public func advance(to time: Duration) {
        if state.withLock({ $0.move(to: time) }) { runDue() }
    }

    /// Sets the wall clock to read `wallTime` now, as an operator's `date -s` or NTP's first sync does;
    /// monotonic time does not move.
    public func setWallTime(_ wallTime: Double) {
        state.withLock { state in
            state.wallOffset = wallTime - state.now.inSeconds
            for index in state.entries.indices {
                guard let target = state.entries[index].wallTarget else { continue }
                state.entries[index].deadline = state.now + .seconds(target - wallTime)
            }
        }
        runDue()
    }

    /// The entry's id, or nil when `deadline` has passed already (nothing was kept).
    private func add(
        _ deadline: Duration,
        wallTarget: Double? = nil,
        _ body: @escaping @Sendable () -> Void
    ) -> Int? {
        state.withLock { state in
            guard deadline > state.now else { return nil }
            state.nextID += 1
            state.entries.append(Entry(id: state.nextID, deadline: deadline, wallTarget: wallTarget, body: body))
            return state.nextID
        }
    }

    /// Ends a sleep with `CancellationError` and forgets its entry.
    private func cancel(_ waiter: SleepWaiter) {
        if let id = waiter.entry.withLock({ $0 }) { state.withLock { $0.entries.removeAll { $0.id == id } } }
        waiter.cancel()
    }

    private func runDue() {
        while let body = nextDue() { body() }
    }

    private func nextDue() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard
                let index = state.entries.indices.min(by: { state.entries[$0].deadline < state.entries[$1].deadline }),
                state.entries[index].deadline <= state.now
            else { return nil }
            return state.entries.remove(at: index).body
        }
    }

}
