import Foundation

/// The rig's time: wall-clock seconds since the Unix epoch, and sleeping until one of them. Tests
/// hand in a manual clock so schedules and backoff run without waiting.
public protocol RigClock: Sendable {
    func now() -> Double
    /// Returns at `deadline`, or throws `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Double) async throws
}

/// The system's clock.
public struct SystemRigClock: RigClock {
    public init() {}

    public func now() -> Double { Date().timeIntervalSince1970 }

    public func sleep(until deadline: Double) async throws {
        let seconds = deadline - now()
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) } else { try Task.checkCancellation() }
    }
}
