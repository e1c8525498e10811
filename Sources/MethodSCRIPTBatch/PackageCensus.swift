import MethodSCRIPT

/// A quick count over a buffer of reply lines, 16 bytes a step: its newlines, and an upper bound of
/// the values a batch decode of it writes (every `;` plus every `P` that starts a line: a `P` line
/// that decodes has one value more than it has separators). It is exact for a buffer of valid `P`
/// lines; lines of other kinds and malformed lines only make it larger.
///
/// The two-thread batch decode uses it to place the second half's values and line numbers where they
/// belong before the first half is decoded.
struct PackageCensus: Equatable {
    /// `\n` bytes.
    var newlines = 0
    /// `;` bytes plus `P` bytes at a line start.
    var valueBound = 0

    /// Counts `[start, end)`; `start` is a line start.
    static func count(_ start: UnsafeRawPointer, _ end: UnsafeRawPointer) -> PackageCensus {
        var census = PackageCensus()
        guard start < end else { return census }
        // The first byte is a line start; the loop below looks at each byte and the one before it.
        let first = start.load(as: UInt8.self)
        census.valueBound = first == 0x50 || first == 0x3B ? 1 : 0
        census.newlines = first == 0x0A ? 1 : 0
        var p = start + 1
        let newline = SIMD16<UInt8>(repeating: 0x0A)
        let separator = SIMD16<UInt8>(repeating: 0x3B)
        let package = SIMD16<UInt8>(repeating: 0x50)
        let zero = SIMD16<UInt8>(repeating: 0)
        let one = SIMD16<UInt8>(repeating: 1)
        // Byte counters, summed before any can pass 255.
        while end - p >= 16 {
            var separators = zero
            var newlines = zero
            var packages = zero
            var steps = min((end - p) / 16, 255)
            while steps > 0 {
                let bytes = p.loadUnaligned(as: SIMD16<UInt8>.self)
                let before = (p - 1).loadUnaligned(as: SIMD16<UInt8>.self)
                separators &+= zero.replacing(with: one, where: bytes .== separator)
                newlines &+= zero.replacing(with: one, where: bytes .== newline)
                packages &+= zero.replacing(with: one, where: (before .== newline) .& (bytes .== package))
                p += 16
                steps -= 1
            }
            census.valueBound += sum(separators) + sum(packages)
            census.newlines += sum(newlines)
        }
        while p < end {
            let byte = p.load(as: UInt8.self)
            if byte == 0x0A { census.newlines += 1 }
            if byte == 0x3B || (byte == 0x50 && (p - 1).load(as: UInt8.self) == 0x0A) { census.valueBound += 1 }
            p += 1
        }
        return census
    }

    @inline(__always)
    static func sum(_ counters: SIMD16<UInt8>) -> Int {
        Int(SIMD16<UInt16>(truncatingIfNeeded: counters).wrappedSum())
    }
}
