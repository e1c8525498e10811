#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Formats numbers with SI prefixes for tick labels and tables: `-57.8µ`, `9.89k`, `100n`.
enum SIFormat {
    private static let prefixes: [(exponent: Int, symbol: String)] = [
        (-18, "a"), (-15, "f"), (-12, "p"), (-9, "n"), (-6, "µ"), (-3, "m"), (0, ""),
        (3, "k"), (6, "M"), (9, "G"), (12, "T"), (15, "P"), (18, "E"),
    ]

    /// `value` with at most `digits` significant digits and the SI prefix that keeps the mantissa in
    /// [1, 1000). Zero prints as `0`, NaN as `nan`, infinities as `inf`/`-inf`.
    static func format(_ value: Double, digits: Int = 4) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == 0 { return "0" }
        let exponent = Int((log10(abs(value)) / 3).rounded(.down)) * 3
        let clamped = min(max(exponent, -18), 18)
        let symbol = prefixes.first { $0.exponent == clamped }?.symbol ?? ""
        let mantissa = value / pow(10, Double(clamped))
        return trimmed(mantissa, digits: digits) + symbol
    }

    /// `value` rounded to `digits` significant digits, without trailing zeros.
    static func trimmed(_ value: Double, digits: Int) -> String {
        let magnitude = value == 0 ? 0 : Int(log10(abs(value)).rounded(.down))
        let decimals = max(0, digits - 1 - magnitude)
        let scale = pow(10, Double(decimals))
        let rounded = (value * scale).rounded() / scale
        var text = String(rounded)
        if text.hasSuffix(".0") { text.removeLast(2) }
        if text.contains("e") { return String(value) }
        return text
    }
}
