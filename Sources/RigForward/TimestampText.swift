import NIOCore

/// `2026-11-25 18:43:50.123456+00`: a time as PostgreSQL reads a `timestamptz`, computed from the
/// count of days (Howard Hinnant's civil-from-days) rather than through a formatter, which would cost
/// more than the rest of a row.
enum TimestampText {
    static func write(_ seconds: Double, into buffer: inout ByteBuffer) {
        let micros = Int64((seconds * 1_000_000).rounded())
        var days = micros / 86_400_000_000
        var rest = micros % 86_400_000_000
        if rest < 0 {
            rest += 86_400_000_000
            days -= 1
        }
        let (year, month, day) = civil(days: days)
        let second = rest / 1_000_000
        let fraction = rest % 1_000_000
        digits(year, 4, &buffer)
        buffer.writeInteger(UInt8(ascii: "-"))
        digits(month, 2, &buffer)
        buffer.writeInteger(UInt8(ascii: "-"))
        digits(day, 2, &buffer)
        buffer.writeInteger(UInt8(ascii: " "))
        digits(second / 3600, 2, &buffer)
        buffer.writeInteger(UInt8(ascii: ":"))
        digits(second / 60 % 60, 2, &buffer)
        buffer.writeInteger(UInt8(ascii: ":"))
        digits(second % 60, 2, &buffer)
        buffer.writeInteger(UInt8(ascii: "."))
        digits(fraction, 6, &buffer)
        buffer.writeStaticString("+00")
    }

    /// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar.
    static func civil(days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func digits(_ value: Int64, _ width: Int, _ buffer: inout ByteBuffer) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            buffer.writeInteger(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }
}
