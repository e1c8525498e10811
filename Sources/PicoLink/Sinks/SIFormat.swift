#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Formats numbers with SI prefixes for tables and labels: `-57.8µ`, `9.89k`, `100n`.
public enum SIFormat {
    private static let prefixes: [(exponent: Int, symbol: String)] = [
        (-18, "a"), (-15, "f"), (-12, "p"), (-9, "n"), (-6, "µ"), (-3, "m"), (0, ""),
        (3, "k"), (6, "M"), (9, "G"), (12, "T"), (15, "P"), (18, "E"),
    ]

    /// The exponents that have a prefix, from atto (−18) to exa (18).
    static let exponents = -18...18

    /// The prefix for an exponent that is a multiple of 3 in `exponents` (`-6` → `µ`), else `""`.
    static func prefix(_ exponent: Int) -> String { prefixes.first { $0.exponent == exponent }?.symbol ?? "" }

    /// The multiple of 3 (within `exponents`) that puts `magnitude` in [1, 1000): `2e-5` → −6.
    static func exponent(of magnitude: Double) -> Int {
        guard magnitude.isFinite, magnitude > 0 else { return 0 }
        // The nudge keeps 1000 (computed as 999.999…) in kilo.
        let exponent = Int(((log10(magnitude) + 1e-9) / 3).rounded(.down)) * 3
        return min(max(exponent, exponents.lowerBound), exponents.upperBound)
    }

    /// `value` with at most `digits` significant digits and the SI prefix that keeps the mantissa in
    /// [1, 1000). Zero prints as `0`, NaN as `nan`, infinities as `inf`/`-inf`.
    static func format(_ value: Double, digits: Int = 4) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        if value == 0 { return "0" }
        let exponent = Int((log10(abs(value)) / 3).rounded(.down)) * 3
        let clamped = min(max(exponent, -18), 18)
        let symbol = prefix(clamped)
        let mantissa = value / pow(10, Double(clamped))
        return trimmed(mantissa, digits: digits) + symbol
    }

    /// `value` and its unit with the SI prefix between them: `100 kHz`, `10 mHz`, `1 Ω`.
    public static func format(_ value: Double, unit: String, digits: Int = 3) -> String {
        guard value.isFinite, value != 0 else { return "\(format(value, digits: digits)) \(unit)" }
        // Rounded first, so that 999.96 is 1 k, not 1000.
        let place = Double(Int(log10(abs(value)).rounded(.down)) - digits + 1)
        let rounded = (value / pow(10, place)).rounded() * pow(10, place)
        let exponent = exponent(of: abs(rounded))
        return "\(trimmed(rounded / pow(10, Double(exponent)), digits: digits)) \(prefix(exponent))\(unit)"
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

    /// `value` with exactly `decimals` digits after the point (`fixed(0.25, decimals: 1)` = `0.3`,
    /// `fixed(-2, decimals: 2)` = `-2.00`), never `-0`; Swift's own text past what 64-bit integers hold.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let places = max(0, decimals)
        let scaled = (value * pow(10, Double(places))).rounded()
        guard abs(scaled) < 9e18 else { return String(value) }
        let integer = Int64(scaled)
        var digits = String(integer.magnitude)
        if places > 0 {
            if digits.count <= places { digits = String(repeating: "0", count: places + 1 - digits.count) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
        }
        return integer < 0 ? "-" + digits : digits
    }

    /// `10⁵`, `10⁻²`: a power of ten with superscript digits.
    static func powerOfTen(_ exponent: Int) -> String {
        let superscripts: [Character] = ["⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"]
        let digits = String(exponent.magnitude).map { superscripts[Int(String($0))!] }
        return "10" + (exponent < 0 ? "⁻" : "") + String(digits)
    }
}
