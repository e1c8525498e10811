import Foundation
import NIOCore
import Testing

@testable import RigForward

@Suite struct CopyTextEncoderTests {
    func text(_ build: (inout CopyTextEncoder) -> Void) -> String {
        var encoder = CopyTextEncoder()
        build(&encoder)
        var buffer = encoder.take()
        return buffer.readString(length: buffer.readableBytes) ?? ""
    }

    @Test func columnsRowsNullsAndEscapes() {
        let rows = text { encoder in
            encoder.text("a\tb\\c\nd\re")
            encoder.text(nil)
            encoder.integer(-42)
            encoder.integer(nil)
            encoder.endRow()
            encoder.double(.nan)
            encoder.double(nil)
            encoder.double(.infinity)
            encoder.double(-.infinity)
            encoder.double(-1.25e-7)
            encoder.endRow()
        }
        #expect(rows == "a\\tb\\\\c\\nd\\re\t\\N\t-42\t\\N\n\\N\t\\N\tInfinity\t-Infinity\t-1.25e-07\n")
    }

    @Test func doublesReadBackExactly() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let written = text { $0.double(value) }
            #expect(Double(written.dropLast(0)) == value)
        }
    }

    @Test func timestampsAgreeWithTheCalendar() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var generator = SystemRandomNumberGenerator()
        let samples = [0.0, -0.5, 951_782_400.25, 4_102_444_799.999999, 1_795_633_042.1198258]
            + (0..<5000).map { _ in Double(Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator)) / 1.0 + 0.000_001 * Double(Int.random(in: 0..<1_000_000, using: &generator)) }
        for seconds in samples {
            let written = text { $0.timestamp(seconds) }
            let micros = Int64((seconds * 1_000_000).rounded())
            let whole = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
            let fraction = micros - whole * 1_000_000
            let expected =
                formatter.string(from: Date(timeIntervalSince1970: Double(whole)))
                + "." + String(format: "%06lld", fraction) + "+00"
            #expect(written == expected, "\(seconds)")
        }
    }
}
