import BLEHost
import Histogram
import Synchronization

/// Inter-arrival times of notifications, recorded on the reader thread where they arrive without
/// allocating, into an HdrHistogram of microseconds with two significant digits (a percentile is
/// within 1 % of the true value; the maximum is exact). Install it with
/// `GATTClient.observeNotifications(_:)`.
public final class NotificationArrivals: NotificationObserver {
    /// Percentiles of the gaps between consecutive arrivals.
    public struct Summary: Sendable, Hashable {
        /// Arrivals recorded (the gaps are one fewer).
        public var arrivals: Int
        /// The median gap.
        public var p50: Duration
        /// The gap that 90 % of gaps do not exceed.
        public var p90: Duration
        /// The gap that 99 % of gaps do not exceed.
        public var p99: Duration
        /// The longest gap, exact.
        public var max: Duration
    }

    /// Gaps above an hour count as an hour in the percentiles (the maximum stays exact).
    static let longestTracked: UInt64 = 3_600_000_000

    private let state: Mutex<State>

    private struct State {
        var last: ContinuousClock.Instant?
        var arrivals = 0
        var maximum: UInt64 = 0
        var gaps: Histogram<UInt64>
    }

    /// An empty record: no arrivals yet.
    public init() {
        let gaps = Histogram<UInt64>(highestTrackableValue: Self.longestTracked, numberOfSignificantValueDigits: .two)
        state = Mutex(State(gaps: gaps))
    }

    /// Records one arrival now: a clock read and a histogram increment under a lock.
    public func notificationArrived() { record(at: .now) }

    /// Records one arrival at `instant` (which must not precede the previous one's).
    public func record(at instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.arrivals += 1
            defer { state.last = instant }
            guard let last = state.last else { return }
            let gap = instant - last
            let micros = UInt64(
                max(0, gap.components.seconds * 1_000_000 + gap.components.attoseconds / 1_000_000_000_000)
            )
            state.maximum = max(state.maximum, micros)
            state.gaps.record(min(micros, Self.longestTracked))
        }
    }

    /// The percentiles so far; nil until two arrivals gave one gap.
    public var summary: Summary? {
        state.withLock { state -> Summary? in
            guard state.gaps.totalCount > 0 else { return nil }
            func percentile(_ percent: Double) -> Duration {
                .microseconds(min(state.gaps.valueAtPercentile(percent), state.maximum))
            }
            return Summary(
                arrivals: state.arrivals,
                p50: percentile(50),
                p90: percentile(90),
                p99: percentile(99),
                max: .microseconds(state.maximum)
            )
        }
    }
}
