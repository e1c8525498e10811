/// The round trips a `GATTEchoProbe` timed, in the order they ran, with the usual summaries.
public struct GATTEchoResult: Sendable, Equatable {
    /// Each round trip's time from the write to its echo, in nanoseconds, in order.
    public let nanoseconds: [Int64]
    /// The notifications that carried the timed round trips' echoes: `count` when each echo came in
    /// one, more when the peripheral split them (a serial bridge forwarding its UART in pieces).
    public let notifications: Int
    private let sorted: [Int64]

    /// The result of round trips that took `nanoseconds`, in the order they ran, whose echoes came in
    /// `notifications` notifications (one each when not given).
    public init(nanoseconds: [Int64], notifications: Int? = nil) {
        self.nanoseconds = nanoseconds
        self.notifications = notifications ?? nanoseconds.count
        sorted = nanoseconds.sorted()
    }

    /// How many round trips were timed.
    public var count: Int { nanoseconds.count }
    /// The fastest round trip, in nanoseconds (0 when none ran).
    public var minimum: Int64 { sorted.first ?? 0 }
    /// The slowest round trip, in nanoseconds (0 when none ran).
    public var maximum: Int64 { sorted.last ?? 0 }

    /// The middle value (the mean of the two middle ones for an even count).
    public var median: Int64 {
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The value at rank ⌊count × fraction⌋ of the sorted samples (the last one at most), as
    /// `Tests/Peers/c/att_rtt.c` computes its p95, so that both are read the same way.
    public func percentile(_ fraction: Double) -> Int64 {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}
