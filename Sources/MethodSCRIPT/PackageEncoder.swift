/// Encodes values as the device writes them: `<type><7 hex digits><prefix>(,<metadata>)*`. The
/// inverse of `PackageDecoder`, for simulators, fixtures and round-trip tests.
public enum PackageEncoder {
    /// The SI prefixes from the smallest factor up (the integer prefix excluded).
    public static let prefixesByFactor: [UInt8] = (0...255).map(UInt8.init)
        .filter { ValueEncoding.prefixFactor[Int($0)] != 0 && $0 != ValueEncoding.integerPrefix }
        .sorted { ValueEncoding.prefixFactor[Int($0)] < ValueEncoding.prefixFactor[Int($1)] }

    /// The representable raw range: −2^27 … 2^27 − 1.
    public static let rawRange = -Int(MethodSCRIPTLimits.valueOffset)...(Int(MethodSCRIPTLimits.valueOffset) - 1)

    /// Appends one variable with an explicit raw number and prefix byte (`nil` raw: the NaN form).
    public static func append(
        _ variable: VariableType,
        raw: Int?,
        prefix: UInt8,
        status: PackageStatus? = nil,
        range: MeasurementRange? = nil,
        noise: UInt8? = nil,
        to out: inout [UInt8]
    ) {
        out.append(UInt8(truncatingIfNeeded: variable.rawValue >> 8))
        out.append(UInt8(truncatingIfNeeded: variable.rawValue))
        if let raw {
            precondition(rawRange.contains(raw), "raw value out of the 28-bit range")
            let number = UInt32(raw + Int(MethodSCRIPTLimits.valueOffset))
            for shift in stride(from: 24, through: 0, by: -4) {
                out.append(hexDigit(UInt8((number >> UInt32(shift)) & 0xF)))
            }
            out.append(prefix)
        } else {
            out.append(contentsOf: Array("     nan".utf8))
        }
        if let status {
            out.append(contentsOf: [0x2C, 0x31, hexDigit(status.rawValue & 0xF)])
        }
        if let range {
            out.append(contentsOf: [0x2C, 0x32, hexDigit(range.rawValue >> 4), hexDigit(range.rawValue & 0xF)])
        }
        if let noise { out.append(contentsOf: [0x2C, 0x34, hexDigit(noise & 0xF)]) }
    }

    /// The raw number and the prefix that represent `value` (SI base unit) most precisely, or `nil` when
    /// it is not finite or too large for any prefix.
    public static func bestEncoding(of value: Double) -> (raw: Int, prefix: UInt8)? {
        guard value.isFinite else { return nil }
        for prefix in prefixesByFactor {
            // The inverse of the decoder's scaling, with the same exact powers of ten.
            let divisor = ValueEncoding.prefixDivisor[Int(prefix)]
            let scaled = (divisor != 0 ? value * divisor : value / ValueEncoding.prefixMultiplier[Int(prefix)])
                .rounded()
            if scaled >= Double(rawRange.lowerBound) && scaled <= Double(rawRange.upperBound) {
                return (Int(scaled), prefix)
            }
        }
        return nil
    }

    /// A whole `P` line (newline included) for `samples`, each value encoded with `bestEncoding`
    /// (the integer prefix for `isInteger` samples, the NaN form for NaN).
    public static func line(_ samples: [Sample]) -> [UInt8] {
        var out: [UInt8] = [0x50]
        for (index, sample) in samples.enumerated() {
            if index > 0 { out.append(0x3B) }
            let encoding: (raw: Int, prefix: UInt8)? =
                sample.isInteger ? (Int(sample.value), ValueEncoding.integerPrefix) : bestEncoding(of: sample.value)
            append(
                sample.variable,
                raw: encoding?.raw,
                prefix: encoding?.prefix ?? 0x20,
                status: sample.status.isEmpty && sample.range == nil ? nil : sample.status,
                range: sample.range,
                noise: sample.noise,
                to: &out
            )
        }
        out.append(0x0A)
        return out
    }

    static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x37 + nibble }
}
