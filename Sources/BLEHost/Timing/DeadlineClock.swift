/// The one source of time for the host's timeouts: ATT transactions (30 s), HCI commands and SMP
/// commands. Owners read `now` when they start something and ask to be woken when it would expire;
/// they arm a `DeadlineAlarm`, which asks for a wake only when none is due by then. Tests inject
/// `ManualDeadlineClock` (BLETesting) instead of sleeping 30 s.
public protocol DeadlineClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    var now: Duration { get }
    /// Calls `body` once, at `deadline` or soon after, never before. A wake cannot be cancelled: its
    /// owner checks, when woken, whether anything is still due.
    func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void)
}

/// The real monotonic clock; each wake is a task sleeping until its deadline.
///
/// The sleeps are never cancelled: a cancelled `Task.sleep` keeps its timer, and the task's memory,
/// until the time it was asked for anyway, so cancelling would save nothing and cost a cancellation
/// per disarmed deadline.
public struct SystemDeadlineClock: DeadlineClock {
    private let origin: ContinuousClock.Instant

    /// A clock whose `now` counts from this moment.
    public init() { origin = .now }

    /// Time since this clock was made.
    public var now: Duration { ContinuousClock.now - origin }

    /// Starts a task that sleeps until `deadline` and then calls `body`.
    public func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void) {
        let instant = origin + deadline
        Task {
            try? await Task.sleep(until: instant, clock: .continuous)
            body()
        }
    }
}
