import Foundation
import Synchronization

/// The time source of a simulated device: seconds on a monotonic scale, and a sleep that a running script's
/// abort can cut short. Inject `WallClock` for real time (script intervals honoured) or `VirtualClock` to run
/// as fast as possible (tests, benchmarks) with the same device timestamps.
public protocol SimulatorClock: Sendable {
    /// Seconds since an arbitrary fixed origin; never decreases.
    func now() -> Double
    /// Returns at `deadline` at the latest, or early once `cancelled()` is true (checked at least every 10 ms).
    func sleep(until deadline: Double, cancelled: () -> Bool)
    /// Whether time passes by itself (real time). A device flushes its output before sleeping only then; in
    /// virtual time it fills whole notifications.
    var isRealTime: Bool { get }
}

/// Real monotonic time; sleeps in slices of at most 10 ms so that an abort is seen promptly.
public struct WallClock: SimulatorClock {
    static let slice = 0.010

    public var isRealTime: Bool { true }

    public init() {}

    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    public func sleep(until deadline: Double, cancelled: () -> Bool) {
        while !cancelled() {
            let remaining = deadline - now()
            if remaining <= 0 { return }
            let seconds = min(remaining, Self.slice)
            var request = timespec(tv_sec: 0, tv_nsec: Int(seconds * 1e9))
            nanosleep(&request, nil)
        }
    }
}

/// Simulated time: `sleep(until:)` returns at once and moves the clock forward, so a 10-minute script runs in
/// as long as it takes to compute and encode its packages, with device timestamps as if in real time.
public final class VirtualClock: SimulatorClock {
    private let time: Mutex<Double>

    public var isRealTime: Bool { false }

    public init(start: Double = 0) {
        time = Mutex(start)
    }

    public func now() -> Double {
        time.withLock { $0 }
    }

    public func sleep(until deadline: Double, cancelled: () -> Bool) {
        time.withLock { $0 = max($0, deadline) }
    }

    /// Moves the clock forward by `seconds` (for tests that model time passing outside a script).
    public func advance(by seconds: Double) {
        time.withLock { $0 += max(0, seconds) }
    }
}
