import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one model of time: a monotonic `now` in `Duration` for every timeout, backoff and interval, a
/// wall-clock reading only for what names a time of day (a schedule's `at` slot, the times records
/// carry), and the ways to wait for a moment of `now`.
///
/// Programs use `SystemClock`; tests inject `ManualClock`, whose time moves only when the test says,
/// so a 30 s ATT timeout or an hour of a rig's schedule passes without waiting.
public protocol TimeSource: Sendable {
    /// Monotonic time since an arbitrary origin: never goes back, whatever the wall clock is set to.
    var now: Duration { get }
    /// Seconds since the Unix epoch as the wall clock reads them now; it may jump either way.
    var wallTime: Double { get }
    /// Calls `body` once, at `deadline` (on `now`'s scale) or soon after, never before. A wake cannot
    /// be cancelled: its owner checks, when woken, whether anything is still due.
    func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void)
    /// Returns at `deadline` or soon after, or throws `CancellationError` once the calling task is
    /// cancelled.
    func sleep(until deadline: Duration) async throws
    /// Blocks the calling thread until `deadline`, or until `cancelled()` returns true (asked at least
    /// every 10 ms): for threads that are not tasks, such as a simulated device's script.
    func block(until deadline: Duration, unless cancelled: () -> Bool)
    /// Returns once the wall clock reads `wallTime` (a schedule's slot), however the wall clock is set
    /// meanwhile, or throws `CancellationError` once the calling task is cancelled.
    func sleep(untilWallTime wallTime: Double) async throws
}

extension TimeSource {
    /// A sleep made of a wake: returns when the wake comes, or throws `CancellationError` as soon as
    /// the calling task is cancelled (the wake then comes to nothing).
    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let waiter = SleepWaiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiter.hold(continuation)
                wake(at: deadline) { waiter.wake() }
                if Task.isCancelled { waiter.cancel() }
            }
        } onCancel: {
            waiter.cancel()
        }
    }

    /// A block made of a wake: polls every millisecond for the wake or `cancelled()`.
    public func block(until deadline: Duration, unless cancelled: () -> Bool) {
        blockUntilWoken(deadline, unless: cancelled)
    }

    /// Waits on the calling thread for a wake at `deadline`, asking `cancelled()` every millisecond.
    public func blockUntilWoken(_ deadline: Duration, unless cancelled: () -> Bool) {
        let due = WakeFlag()
        wake(at: deadline) { due.raise() }
        while !due.isRaised && !cancelled() {
            var request = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&request, nil)
        }
    }

    /// Returns after `duration` of monotonic time, or throws `CancellationError` once the calling
    /// task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now + duration)
    }

    /// Waits in steps of at most a minute, each measured against the wall clock again: a wait is timed
    /// on the monotonic clock, so a clock set forward or back meanwhile (NTP's first sync on a board
    /// without a battery-backed clock, an operator's `date -s`) would otherwise move the wake-up by as
    /// much; this way it comes at most a minute late.
    public func sleep(untilWallTime target: Double) async throws {
        try await sleep(untilWallTime: target, step: .seconds(60))
    }

    /// `sleep(untilWallTime:)` in steps of at most `step`.
    public func sleep(untilWallTime target: Double, step: Duration) async throws {
        while true {
            let seconds = target - wallTime
            guard seconds > 0 else { return try Task.checkCancellation() }
            try await sleep(for: min(.seconds(seconds), step))
        }
    }
}
