import Foundation

/// Numbers as MethodSCRIPT writes them: an integer with an SI prefix (`-500m`, `12500u`, `100k`, `31i`),
/// since the language has neither decimal points nor exponents.
public enum MethodNumber {
    private static let prefixes: [(exponent: Int, suffix: String)] = [
        (6, "M"), (3, "k"), (0, ""), (-3, "m"), (-6, "u"), (-9, "n"), (-12, "p"), (-15, "f"),
    ]

    /// `value` in MethodSCRIPT: the largest prefix that leaves a whole mantissa (`0.0125` → `12500u`);
    /// `integer` writes a whole number with the `i` suffix. A value finer than 1 f is rounded to it.
    public static func text(_ value: Double, integer: Bool = false) -> String {
        if integer { return "\(Int(value.rounded()))i" }
        if value == 0 { return "0" }
        for (exponent, suffix) in prefixes {
            let mantissa = value / pow(10, Double(exponent))
            let whole = mantissa.rounded()
            if abs(whole) >= 1, abs(mantissa - whole) <= 1e-9 * max(1, abs(whole)), abs(whole) < 1e15 {
                return "\(Int64(whole))\(suffix)"
            }
        }
        return "\(Int64((value / 1e-15).rounded()))f"
    }

    /// A number for people: `0.1`, `-1.7`, `200000` (no exponent for the values methods use).
    public static func plain(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return "\(Int64(value))" }
        var text = String(format: "%.9f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
