/// The fast path of a `P` line: fixed-width reads for the common shapes only.
///
/// A variable is `<type:2><hex:7><prefix:1>` (10 bytes, one 8-byte load for digits and prefix, SWAR
/// validation and conversion; prefixes of exponent ≤ 0), then either a terminator (`;` or `\n`) or the 7-byte metadata
/// `,1s,2rr` checked with one 8-byte load and a mask. Anything else — `nan`, other metadata, `\r`,
/// a bad byte, a line too close to `end` — makes it give up; the caller then discards what it wrote
/// for the line and decodes the line again with `decodeBody`, which gives the exact error. A line
/// it accepts it decodes exactly as `decodeBody` does.
extension PackageDecoder {
    /// `,1?,2??` as a little-endian word, and the mask of its fixed bytes.
    @usableFromInline static let metadataPattern: UInt64 = 0x0000_0032_2C00_312C
    @usableFromInline static let metadataMask: UInt64 = 0x0000_00FF_FF00_FFFF

    /// Decodes the variables from `start` (the byte after `P`); returns the address of the line's `\n`,
    /// or `nil` when the line needs `decodeBody` (values written to `sink` for it must then be
    /// discarded). Every read stays below `end`.
    @inlinable @inline(always)
    package static func decodeBodyFast<S: RawSampleSink>(
        _ start: UnsafeRawPointer,
        end: UnsafeRawPointer,
        tables: DecodeTables,
        sink: inout S
    ) -> UnsafeRawPointer? {
        var q = start
        while end - q >= 11 {
            let types = UInt16(littleEndian: q.loadUnaligned(as: UInt16.self))
            let word = UInt64(littleEndian: (q + 2).loadUnaligned(as: UInt64.self))
            let number = HexDecoding.swar(word)
            let prefix = UInt8(truncatingIfNeeded: word >> 56)
            let divisor = tables.divisor[Int(prefix)]
            // One branch for the four checks: both type letters, the digits and the prefix (a prefix of
            // a positive exponent, which multiplies, is left to `decodeBody`).
            let letters = PackageDecoder.areLetters(types)
            guard letters && number != HexDecoding.invalid && divisor != 0 else { return nil }
            // As `DecodeTables.value`: an exact integer over an exact power of ten, one rounding.
            let value = Double(Int32(bitPattern: number) &- MethodSCRIPTLimits.valueOffset) / divisor
            let integer = prefix == ValueEncoding.integerPrefix ? SampleFlags.integer : 0
            let variable = types.byteSwapped
            let next = q.load(fromByteOffset: 10, as: UInt8.self)
            if next == 0x3B || next == 0x0A {
                sink.put(RawSample(variable: variable, value: value, status: 0, range: 0, noise: 0, flags: integer))
                if next == 0x0A { return q + 10 }
                q += 11
                continue
            }
            guard end - q >= 18 else { return nil }
            let meta = UInt64(littleEndian: (q + 10).loadUnaligned(as: UInt64.self))
            let status = tables.hex[Int(truncatingIfNeeded: (meta >> 16) & 0xFF)]
            let range0 = tables.hex[Int(truncatingIfNeeded: (meta >> 40) & 0xFF)]
            let range1 = tables.hex[Int(truncatingIfNeeded: (meta >> 48) & 0xFF)]
            let terminator = UInt8(truncatingIfNeeded: meta >> 56)
            guard meta & metadataMask == metadataPattern, (status | range0 | range1) & 0xF0 == 0,
                terminator == 0x3B || terminator == 0x0A
            else { return nil }
            sink.put(
                RawSample(
                    variable: variable,
                    value: value,
                    status: status,
                    range: range0 << 4 | range1,
                    noise: 0,
                    flags: integer | SampleFlags.status | SampleFlags.range
                )
            )
            if terminator == 0x0A { return q + 17 }
            q += 18
        }
        return nil
    }

    /// Whether both bytes of `types` are `a`…`z`, in one test: after subtracting `aa`, a byte that is
    /// a letter is below 26, so neither it nor it plus 0x66 has bit 7 set; any other byte sets bit 7
    /// in one of the two (a borrow or carry between the bytes only comes from a byte that fails).
    @inlinable @inline(__always)
    package static func areLetters(_ types: UInt16) -> Bool {
        let offsets = types &- 0x6161
        return (offsets | (offsets &+ 0x6666)) & 0x8080 == 0
    }
}
