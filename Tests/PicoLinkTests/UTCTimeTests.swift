import PicoLink
import Testing

/// Times as the outputs write them: UTC, with as many digits of the second as asked, rounded down.
@Suite struct UTCTimeTests {
    @Test func milliByDefaultAndMicroWhenAsked() {
        #expect(UTCTime.iso8601(1_795_332_600.5) == "2026-11-22T07:30:00.500Z")
        #expect(UTCTime.iso8601(1_795_332_600.25, fractionDigits: 6) == "2026-11-22T07:30:00.250000Z")
        #expect(UTCTime.iso8601(0, fractionDigits: 1) == "1970-01-01T00:00:00.0Z")
    }

    @Test func aTimeBeforeTheEpochRoundsDownToTheEarlierSecond() {
        #expect(UTCTime.iso8601(-0.25) == "1969-12-31T23:59:59.750Z")
        #expect(UTCTime.iso8601(-0.25, fractionDigits: 6) == "1969-12-31T23:59:59.750000Z")
    }
}
