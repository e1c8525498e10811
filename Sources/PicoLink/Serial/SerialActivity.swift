import BLEHost
import Coordination
import Synchronization

/// What the reader thread reports: bytes and the time of the last value (atomics, no allocation), and
/// why the link closed (a latch the waits for the close wake on).
final class SerialActivity: Sendable {
    private let bytes = Atomic<Int>(0)
    /// The clock's `now` at the last value, in nanoseconds.
    private let last = Atomic<Int64>(0)
    /// Settled with why the link closed, once it did.
    let closed = Latch<GATTError>()
    let clock: any TimeSource

    init(clock: any TimeSource) { self.clock = clock }

    func received(_ count: Int) {
        bytes.add(count, ordering: .relaxed)
        last.store(Self.nanoseconds(clock.now), ordering: .relaxed)
    }

    var byteCount: Int { bytes.load(ordering: .relaxed) }
    /// When the last value came (`.zero` before the first).
    var lastReceived: Duration { .nanoseconds(last.load(ordering: .relaxed)) }
    var closeReason: GATTError? { closed.value }

    func close(_ why: GATTError) { _ = closed.settle(why) }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
