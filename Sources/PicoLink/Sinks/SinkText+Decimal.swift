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
