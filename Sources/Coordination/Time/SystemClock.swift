#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The system's clocks: `now` is `CLOCK_MONOTONIC` (as `ContinuousClock`) from the moment the value
/// was made, `wallTime` is `CLOCK_REALTIME`.
///
/// A wake is a task sleeping until its deadline. Those sleeps are never cancelled: a cancelled
/// `Task.sleep` keeps its timer, and the task's memory, until the time it was asked for anyway, so
/// cancelling would save nothing and cost a cancellation per disarmed deadline.
public struct SystemClock: TimeSource {
    private let origin: ContinuousClock.Instant

    /// A clock whose `now` counts from this moment.
    public init() { origin = .now }

    /// Time since this value was made.
    public var now: Duration { ContinuousClock.now - origin }

    /// `CLOCK_REALTIME` in seconds.
    public var wallTime: Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    /// Starts a task that sleeps until `deadline` and then calls `body`.
    public func wake(at deadline: Duration, _ body: @escaping @Sendable () -> Void) {
        let instant = origin + deadline
        Task {
            try? await Task.sleep(until: instant, clock: .continuous)
            body()
        }
    }

    /// `Task.sleep` until `deadline`.
    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }

    /// Sleeps in slices of at most 10 ms, so that `cancelled()` is seen promptly.
    public func block(until deadline: Duration, unless cancelled: () -> Bool) {
        while !cancelled() {
            let remaining = deadline - now
            guard remaining > .zero else { return }
            let slice = min(remaining, .milliseconds(10))
            var request = timespec(tv_sec: 0, tv_nsec: Int(slice.components.attoseconds / 1_000_000_000))
            nanosleep(&request, nil)
        }
    }
}
