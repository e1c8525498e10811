import Synchronization

/// Inter-arrival times of notifications, recorded on the reader thread where they arrive without
/// allocating: a fixed log-linear histogram of microseconds (exact below 64 µs, then 32 buckets per
/// power of two, so a percentile is within 1/32 ≈ 3 % of the true value; the maximum is exact).
public final class NotificationArrivals: Sendable {
    /// Percentiles of the gaps between consecutive arrivals.
    public struct Summary: Sendable, Hashable {
        /// Arrivals recorded (the gaps are one fewer).
        public var arrivals: Int
        public var p50: Duration
        public var p90: Duration
        public var p99: Duration
        public var max: Duration
    }

    static let exactBelow = 64
    static let subBuckets = 32
    static let octaves = 36  // 64 µs · 2^36: about 50 days
    static let bucketCount = exactBelow + octaves * subBuckets

    private let state: Mutex<State>

    private struct State {
        var last: ContinuousClock.Instant?
        var arrivals = 0
        var maximum: Int64 = 0
        var counts: [UInt64]
    }

    public init() {
        state = Mutex(State(counts: [UInt64](repeating: 0, count: Self.bucketCount)))
    }

    /// Records one arrival now (the hot path: a clock read and a counter increment under a lock).
    public func record() { record(at: .now) }

    public func record(at instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.arrivals += 1
            defer { state.last = instant }
            guard let last = state.last else { return }
            let gap = instant - last
            let micros = max(0, gap.components.seconds * 1_000_000 + gap.components.attoseconds / 1_000_000_000_000)
            state.maximum = max(state.maximum, micros)
            state.counts[Self.bucket(micros)] += 1
        }
    }

    /// The bucket of a gap of `micros` microseconds.
    static func bucket(_ micros: Int64) -> Int {
        if micros < Int64(exactBelow) { return Int(micros) }
        let exponent = 63 - micros.leadingZeroBitCount  // ≥ 6
        let octave = exponent - 6
        guard octave < octaves else { return bucketCount - 1 }
        let sub = Int((micros >> (exponent - 5)) & Int64(subBuckets - 1))
        return exactBelow + octave * subBuckets + sub
    }

    /// The largest gap a bucket holds, in microseconds.
    static func upperBound(_ bucket: Int) -> Int64 {
        if bucket < exactBelow { return Int64(bucket) }
        let octave = (bucket - exactBelow) / subBuckets
        let sub = Int64((bucket - exactBelow) % subBuckets)
        let exponent = octave + 6
        return ((Int64(subBuckets) + sub + 1) << (exponent - 5)) - 1
    }

    /// The percentiles so far; nil until two arrivals gave one gap.
    public var summary: Summary? {
        state.withLock { state -> Summary? in
            let gaps = state.counts.reduce(0, +)
            guard gaps > 0 else { return nil }
            func percentile(_ fraction: Double) -> Duration {
                let rank = Swift.max(1, UInt64((Double(gaps) * fraction).rounded(.up)))
                var seen: UInt64 = 0
                for (bucket, count) in state.counts.enumerated() where count > 0 {
                    seen += count
                    if seen >= rank { return .microseconds(Swift.min(Self.upperBound(bucket), state.maximum)) }
                }
                return .microseconds(state.maximum)
            }
            return Summary(
                arrivals: state.arrivals,
                p50: percentile(0.5),
                p90: percentile(0.9),
                p99: percentile(0.99),
                max: .microseconds(state.maximum)
            )
        }
    }
}
