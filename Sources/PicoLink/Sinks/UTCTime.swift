#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Times as the text sinks write them, always in UTC.
public enum UTCTime {
    /// ISO 8601 with milliseconds, `2026-11-22T07:21:15.827Z`, or with as many digits of the second as
    /// `fractionDigits` says (1 to 9; 6 gives microseconds), rounded down.
    public static func iso8601(_ seconds: Double, fractionDigits: Int = 3) -> String {
        precondition((1...9).contains(fractionDigits), "1 to 9 digits of the second")
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        let ticks = Int64((seconds * Double(scale)).rounded(.down))
        let (whole, fraction) = ticks.quotientAndRemainder(dividingBy: scale)
        let (date, time) = parts(fraction < 0 ? whole - 1 : whole)
        let digits = fraction < 0 ? fraction + scale : fraction
        return "\(date)T\(time).\(pad(Int(digits), fractionDigits))Z"
    }

    /// Date and time to the second, as PSTrace writes them: `2026-11-22 07:21:15`.
    static func dateTime(_ seconds: Double) -> String {
        let (date, time) = parts(Int64(seconds.rounded(.down)))
        return "\(date) \(time)"
    }

    /// `2026-11-22` and `07:21:15` for whole seconds since the Unix epoch.
    private static func parts(_ seconds: Int64) -> (date: String, time: String) {
        var value = time_t(seconds)
        var fields = tm()
        gmtime_r(&value, &fields)
        let date =
            "\(pad(Int(fields.tm_year) + 1900, 4))-\(pad(Int(fields.tm_mon) + 1, 2))-\(pad(Int(fields.tm_mday), 2))"
        let time = "\(pad(Int(fields.tm_hour), 2)):\(pad(Int(fields.tm_min), 2)):\(pad(Int(fields.tm_sec), 2))"
        return (date, time)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
