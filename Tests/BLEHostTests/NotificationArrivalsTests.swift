import Testing

@testable import BLEHost

@Suite struct NotificationArrivalsTests {
    @Test func percentilesOfKnownGaps() throws {
        let arrivals = NotificationArrivals()
        #expect(arrivals.summary == nil)
        var now = ContinuousClock.now
        arrivals.record(at: now)
        #expect(arrivals.summary == nil, "one arrival has no gap")
        // 90 gaps of 7.5 ms, 9 of 15 ms, 1 of 100 ms.
        for gap in Array(repeating: 7500, count: 90) + Array(repeating: 15000, count: 9) + [100_000] {
            now += .microseconds(gap)
            arrivals.record(at: now)
        }
        let summary = try #require(arrivals.summary)
        #expect(summary.arrivals == 101)
        #expect(summary.max == .microseconds(100_000))
        // Within the bucket resolution (1/32) above the true value.
        #expect(summary.p50 >= .microseconds(7500) && summary.p50 <= .microseconds(7500 + 7500 / 32))
        #expect(summary.p90 >= .microseconds(7500) && summary.p90 <= .microseconds(7500 + 7500 / 32))
        #expect(summary.p99 >= .microseconds(15000) && summary.p99 <= .microseconds(15000 + 15000 / 32))
    }

    @Test func bucketsCoverEveryValueInOrder() {
        var previous = -1
        for micros in [0, 1, 63, 64, 65, 127, 128, 1000, 7500, 1_000_000, 1 << 40, Int64.max] as [Int64] {
            let bucket = NotificationArrivals.bucket(micros)
            #expect(bucket >= previous, "\(micros)")
            #expect(bucket < NotificationArrivals.bucketCount)
            if micros < 1 << 40 { #expect(NotificationArrivals.upperBound(bucket) >= micros, "\(micros)") }
            previous = bucket
        }
        for micros: Int64 in [64, 100, 7500, 123_456] {
            let upper = NotificationArrivals.upperBound(NotificationArrivals.bucket(micros))
            #expect(upper - micros <= micros / 32, "\(micros) → \(upper)")
        }
    }
}
