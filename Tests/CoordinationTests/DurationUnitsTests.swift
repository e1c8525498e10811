import Coordination
import Testing

/// A duration as a floating-point number of seconds, milliseconds, microseconds or nanoseconds: whole
/// and fractional parts, below a nanosecond, and before zero.
@Suite struct DurationUnitsTests {
    @Test func eachUnitCountsTheWholeAndTheFraction() {
        let duration = Duration.seconds(2) + .milliseconds(250) + .microseconds(125)
        #expect(duration.inSeconds == 2.250125)
        #expect(duration.inMilliseconds == 2250.125)
        #expect(duration.inMicroseconds == 2_250_125)
        #expect(duration.inNanoseconds == 2_250_125_000)
    }

    @Test func lessThanANanosecondIsKept() {
        let half = Duration.nanoseconds(1) / 2
        #expect(half.inNanoseconds == 0.5)
        #expect(Duration.zero.inSeconds == 0)
    }

    @Test func aNegativeDurationIsNegativeInEveryUnit() {
        let back = Duration.zero - .milliseconds(1500)
        #expect(back.inSeconds == -1.5)
        #expect(back.inMilliseconds == -1500)
        #expect(back.inMicroseconds == -1_500_000)
    }
}
