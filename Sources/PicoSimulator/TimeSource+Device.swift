import Coordination

/// How a simulated device reads its clock: in seconds, as its scripts count time.
extension TimeSource {
    /// `now` in seconds.
    var seconds: Double {
        let parts = now.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }

    /// Whether time passes by itself (any clock but a `ManualClock`): a device flushes its output
    /// before it waits, and is slowed by its UART, only then; in skipped idle time it fills whole
    /// notifications.
    var passesByItself: Bool { !(self is ManualClock) }

    /// Blocks until `seconds` on this clock, or until `cancelled()`.
    func block(untilSeconds seconds: Double, unless cancelled: () -> Bool) {
        block(until: .seconds(seconds), unless: cancelled)
    }
}
