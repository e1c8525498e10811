/// Time for the ATT transaction timeout. The bearer reads `now` when it sends a request or an indication
/// and asks for periodic ticks, at which it checks the deadline. Tests inject a manual clock instead of
/// sleeping 30 s.
public protocol ATTClock: Sendable {
    /// Monotonic time since an arbitrary origin.
    var now: Duration { get }
    /// Calls `tick` about every `interval` until the returned ticker is cancelled.
    func startTicking(every interval: Duration, _ tick: @escaping @Sendable () -> Void) -> any ATTClockTicker
}

/// A running periodic tick; cancel it to stop.
public protocol ATTClockTicker: Sendable {
    func cancel()
}

/// The real monotonic clock, ticking from a task that sleeps between ticks.
public struct SystemATTClock: ATTClock {
    private let origin = ContinuousClock.now

    public init() {}

    public var now: Duration { ContinuousClock.now - origin }

    public func startTicking(every interval: Duration, _ tick: @escaping @Sendable () -> Void) -> any ATTClockTicker {
        TaskTicker(
            task: Task.detached {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    if Task.isCancelled { break }
                    tick()
                }
            }
        )
    }

    private struct TaskTicker: ATTClockTicker {
        let task: Task<Void, Never>
        func cancel() { task.cancel() }
    }
}
