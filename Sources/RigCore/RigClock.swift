import Foundation

/// The rig's time: wall-clock seconds since the Unix epoch, and sleeping until one of them or for a
/// while. Tests hand in a manual clock so schedules and backoff run without waiting.
public protocol RigClock: Sendable {
    func now() -> Double
    /// Returns once the wall clock reads `deadline` (a clock set forward or back moves the wake-up
    /// with it: a schedule's slot), or throws `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Double) async throws
    /// Returns after `deadline - now()` of elapsed time, whatever the wall clock is set to meanwhile
    /// (a timeout, a backoff, an `every` schedule), or throws `CancellationError` when the calling task
    /// is cancelled first.
    func sleep(elapsedUntil deadline: Double) async throws
}

extension RigClock {
    /// For a clock whose time only moves when it is told to, elapsed time and its time are one.
    public func sleep(elapsedUntil deadline: Double) async throws {
        try await sleep(until: deadline)
    }
}

/// The system's clock.
public struct SystemRigClock: RigClock {
    /// The longest single wait of `sleep(until:)` before the wall clock is read again.
    let step: Duration
    let wall: @Sendable () -> Double
    /// One wait on the monotonic clock.
    let pause: @Sendable (Duration) async throws -> Void

    public init() {
        self.init(step: .seconds(60)) { Date().timeIntervalSince1970 }
    }

    init(
        step: Duration,
        wall: @escaping @Sendable () -> Double,
        pause: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.step = step
        self.wall = wall
        self.pause = pause
    }

    public func now() -> Double { wall() }

    /// Waits in steps of at most `step`, each measured against the wall clock again: a wait is timed
    /// by the monotonic clock, so a clock set forward or back meanwhile (NTP's first sync on a board
    /// without a battery-backed clock, an operator's `date -s`) would otherwise move the wake-up by as
    /// much.
    public func sleep(until deadline: Double) async throws {
        while true {
            let seconds = deadline - now()
            guard seconds > 0 else { return try Task.checkCancellation() }
            try await pause(min(.seconds(seconds), step))
        }
    }

    /// One sleep on the monotonic clock, as long as the wall clock says when it starts.
    public func sleep(elapsedUntil deadline: Double) async throws {
        let seconds = deadline - now()
        if seconds > 0 { try await pause(.seconds(seconds)) } else { try Task.checkCancellation() }
    }
}
