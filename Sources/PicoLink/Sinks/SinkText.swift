/// Text helpers shared by the text sinks.
enum SinkText {
    /// Shortest round-trip decimal form; `NaN`/`inf` spelled as given.
    static func number(_ value: Double, nan: String) -> String {
        if value.isNaN { return nan }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return String(value)
    }

    /// A JSON number; `null` for NaN and infinities, which JSON cannot express.
    static func jsonNumber(_ value: Double) -> String { value.isFinite ? String(value) : "null" }

    /// Seconds with microsecond resolution, e.g. `1763787000.123456`.
    static func seconds(_ value: Double) -> String {
        // Unknown (a decoded transcript has no host time): an empty field.
        guard value.isFinite else { return "" }
        let micros = Int64((value * 1_000_000).rounded())
        let whole = micros / 1_000_000
        let fraction = abs(micros % 1_000_000)
        let digits = String(fraction)
        let sign = micros < 0 && whole == 0 ? "-" : ""
        return "\(sign)\(whole).\(String(repeating: "0", count: 6 - digits.count))\(digits)"
    }

    /// A CSV field, quoted when it holds a comma, quote or newline.
    static func csv(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}

extension SinkText {
    /// `value` times 10^`power` as the shortest decimal that round-trips, computed on the decimal
    /// text rather than by multiplying: the device's −57.8 µA (`-5.78e-05` A) is `-57.8` in µA, where
    /// `-5.78e-05 * 1e6` would give `-57.800000000000004`. NaN and infinities as `number` spells them.
    static func number(_ value: Double, timesTenToThe power: Int, nan: String) -> String {
        guard value.isFinite, power != 0 else { return number(value, nan: nan) }
        let text = String(value)
        let digits: Substring
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            digits = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        } else {
            digits = text[...]
        }
        // The shortest text has at most 17 significant digits, so the shifted decimal parses to the
        // double nearest to it, whose shortest text is that decimal again.
        guard let shifted = Double("\(digits)e\(exponent + power)") else { return number(value, nan: nan) }
        return number(shifted, nan: nan)
    }
}
