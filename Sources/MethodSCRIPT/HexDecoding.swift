/// Decoding of the seven hex digits of a value. Both functions return the 28-bit number, or
/// `HexDecoding.invalid` when any of the seven bytes is not a hex digit. The prefix (8th byte) is
/// never part of the number: `a`, `f` and `E` are hex digits too.
public enum HexDecoding {
    /// Returned for input that is not seven hex digits.
    public static let invalid: UInt32 = 0xFFFF_FFFF

    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let lanes: UInt64 = 0x00FF_FFFF_FFFF_FFFF  // the 7 digit bytes of a little-endian load

    /// SWAR: all seven digits at once from one 8-byte little-endian load `word` whose low seven bytes
    /// are the digits (the top byte, the prefix, is ignored).
    @inlinable @inline(__always)
    public static func swar(_ word: UInt64) -> UInt32 {
        let x = word & lanes
        let high: UInt64 = 0x8080_8080_8080_8080 & lanes
        // For a byte b < 0x80: b >= lo ⇔ bit 7 of b + (0x80 − lo); b <= hi ⇔ bit 7 of b + (0x7F − hi) is clear.
        let ascii = (x & high) == 0
        let digit = (x &+ ones &* (0x80 - 0x30)) & ~(x &+ ones &* (0x7F - 0x39)) & high
        let folded = x | (ones &* 0x20) & lanes
        let letter = (folded &+ ones &* (0x80 - 0x61)) & ~(folded &+ ones &* (0x7F - 0x66)) & high
        let valid = ascii && (digit | letter) == high
        // Nibble per lane: the low four bits, plus 9 for letters ('a' = 0x61 → 1 + 9).
        let nibbles = (x & (ones &* 0x0F)) &+ (letter >> 7) &* 9
        // Pack big-endian (lane 0 is the most significant digit) with three multiplies: each joins
        // neighbouring groups, `low · 2^k + high`, in the upper half of a group twice as wide; what
        // else the product holds lands in bits the shift and mask drop, and no two terms overlap.
        let pairs = (nibbles &* 0x1001) >> 8 & 0x00FF_00FF_00FF_00FF
        let quads = (pairs &* 0x0100_0001) >> 16 & 0x0000_FFFF_0000_FFFF
        // The eighth lane (the prefix, masked to 0) is the lowest nibble: shifting it out leaves 28 bits.
        let number = UInt32(truncatingIfNeeded: (quads &* 0x0001_0000_0000_0001) >> 36)
        return valid ? number : invalid
    }

    /// SWAR over a pointer to at least eight readable bytes.
    @inlinable @inline(__always)
    public static func swar(at pointer: UnsafeRawPointer) -> UInt32 {
        swar(UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self)))
    }

    /// The scalar reference: one table lookup per digit.
    @inline(__always)
    public static func scalar(at pointer: UnsafeRawPointer) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<7 {
            let digit = ValueEncoding.hexDigit[Int(pointer.load(fromByteOffset: index, as: UInt8.self))]
            if digit == 0xFF { return invalid }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
