import BLEDiagnostics
import Testing

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
        // Two significant digits: within 1 % of the true value.
        #expect(summary.p50 >= .microseconds(7425) && summary.p50 <= .microseconds(7575))
        #expect(summary.p90 >= .microseconds(7425) && summary.p90 <= .microseconds(7575))
        #expect(summary.p99 >= .microseconds(14850) && summary.p99 <= .microseconds(15150))
    }

    @Test func aGapBeyondTheTrackedRangeKeepsAnExactMaximum() throws {
        let arrivals = NotificationArrivals()
        let start = ContinuousClock.now
        arrivals.record(at: start)
        arrivals.record(at: start + .seconds(7200))
        let summary = try #require(arrivals.summary)
        #expect(summary.max == .seconds(7200))
        #expect(summary.p99 <= .seconds(7200))
        #expect(summary.p99 >= .seconds(3564), "counted at the top of the tracked range, an hour")
    }
}
