/// The 8-character value field of a MethodSCRIPT data package, encoded the way an EmStat Pico writes it.
///
/// Layout: 7 uppercase hex digits holding `raw + 0x8000000` (a signed 28-bit integer with offset 2^27),
/// followed by one SI prefix character; the value is `raw × factor(prefix)`. NaN is the 8 characters
/// `"     nan"`.
///
/// Prefix rule, derived from published device output: the device keeps the most precision, i.e. it picks the
/// *smallest* prefix for which `|raw| < 2^27`:
///
/// | value | field | why not the next smaller prefix |
/// |---|---|---|
/// | −0.499905 V | `7F85F3Fu` | −499 905 000 n would not fit |
/// | −57.847747 µA | `48D503Dp` | −57 847 747 000 f would not fit |
/// | 99.999732 Hz | `DF5DFF4u` | 99 999 732 000 n would not fit |
/// | 9885.956 Ω | `896D904m` | 9 885 956 000 µ would not fit |
///
/// Zero fits every prefix and so is written with the smallest, `a` (`8000000a`). Integers written with the
/// `i` marker (counts, loop indices) use `i` when they fit.
///
/// Written apart from MethodSCRIPT's `PackageEncoder` on purpose: the simulator is the oracle the decoder
/// is tested against (and the stand-in for a device in every tier), so it must not share its encoding
/// with the code under test; both are checked against the published device output.
public enum PicoValueFormat {
    /// Offset added to the signed raw value: 2^27.
    public static let offset: Int64 = 0x800_0000
    /// Characters in one encoded value (7 hex digits + prefix).
    public static let width = 8
    /// The SI prefix characters from 10^-18 to 10^18 in steps of 10^3 (`" "` is 10^0).
    static let prefixes: [UInt8] = Array("afpnum kMGTPE".utf8)
    /// 10^-(exponent) for each entry of `prefixes`: multiplying by it gives the raw value.
    static let inverseFactors: [Double] = [1e18, 1e15, 1e12, 1e9, 1e6, 1e3, 1, 1e-3, 1e-6, 1e-9, 1e-12, 1e-15, 1e-18]
    static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Appends the 8-character field for `value` (SI prefix chosen as the device would) to `buffer`.
    public static func append(_ value: Double, to buffer: inout [UInt8]) {
        guard value.isFinite else {
            // The device writes NaN in place of value and prefix; infinities are not representable either.
            buffer.append(contentsOf: nanField)
            return
        }
        var index = 0
        var raw: Int64 = 0
        while index < prefixes.count {
            let scaled = (value * inverseFactors[index]).rounded()
            if abs(scaled) < Double(offset) {
                raw = Int64(scaled)
                break
            }
            index += 1
        }
        if index == prefixes.count {
            // Beyond 1.3e26: saturate in the largest prefix rather than wrap.
            index = prefixes.count - 1
            raw = value < 0 ? -offset : offset - 1
        }
        appendRaw(raw, prefix: prefixes[index], to: &buffer)
    }

    /// Appends an integer with the `i` marker; values outside the 28-bit range fall back to SI encoding.
    public static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
        guard value > -offset, value < offset else {
            append(Double(value), to: &buffer)
            return
        }
        appendRaw(value, prefix: UInt8(ascii: "i"), to: &buffer)
    }

    /// The field as a `String` (tests, diagnostics).
    public static func encode(_ value: Double) -> String {
        var buffer: [UInt8] = []
        append(value, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    static let nanField: [UInt8] = Array("     nan".utf8)

    static func appendRaw(_ raw: Int64, prefix: UInt8, to buffer: inout [UInt8]) {
        let biased = UInt64(raw + offset)
        var shift: UInt64 = 24
        for _ in 0..<7 {
            buffer.append(hexDigits[Int((biased >> shift) & 0xF)])
            shift &-= 4
        }
        buffer.append(prefix)
    }
}
