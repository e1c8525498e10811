/// Pointers to the generated tables, valid inside `PackageDecoder.withTables`.
@usableFromInline package struct DecodeTables {
    /// `ValueEncoding.prefixDivisor`: 10^-k for a prefix of exponent k ≤ 0, else 0.
    @usableFromInline package let divisor: UnsafePointer<Double>
    /// `ValueEncoding.prefixMultiplier`: 10^k for a prefix of exponent k ≥ 0, else 0.
    @usableFromInline package let multiplier: UnsafePointer<Double>
    @usableFromInline package let hex: UnsafePointer<UInt8>

    @usableFromInline
    init(divisor: UnsafePointer<Double>, multiplier: UnsafePointer<Double>, hex: UnsafePointer<UInt8>) {
        self.divisor = divisor
        self.multiplier = multiplier
        self.hex = hex
    }

    /// Copies of the generated tables that the caller owns (and frees with `deallocate`): a parser
    /// that decodes a line at a time keeps them instead of taking the tables' addresses per line.
    @usableFromInline package static func allocateCopy() -> DecodeTables {
        DecodeTables(
            divisor: copy(of: ValueEncoding.prefixDivisor),
            multiplier: copy(of: ValueEncoding.prefixMultiplier),
            hex: copy(of: ValueEncoding.hexDigit)
        )
    }

    private static func copy<T>(of table: [T]) -> UnsafePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: table.count)
        pointer.initialize(from: table, count: table.count)
        return UnsafePointer(pointer)
    }

    @usableFromInline package func deallocate() {
        divisor.deallocate()
        multiplier.deallocate()
        hex.deallocate()
    }

    /// The value of `mantissa` (offset already removed) with the prefix byte `prefix`, or `nil` when
    /// the byte is no prefix: the exact integer divided by an exact 10^k, or multiplied by one — a
    /// single rounding, so the double nearest to the decimal the device sent (`30` with `m` is 0.03,
    /// not the 0.030000000000000002 of multiplying by the inexact 1e-3).
    @inlinable @inline(__always)
    package func value(_ mantissa: Int32, prefix: UInt8) -> Double? {
        let divisor = divisor[Int(prefix)]
        if divisor != 0 { return Double(mantissa) / divisor }
        let multiplier = multiplier[Int(prefix)]
        return multiplier != 0 ? Double(mantissa) * multiplier : nil
    }
}
