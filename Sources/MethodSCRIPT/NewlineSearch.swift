/// Finding `\n` eight bytes at a time: the one SWAR test behind every newline search of the package
/// (the framer's, the small-chunk path's, the batch decoder's).
package enum NewlineSearch {
    /// `\n` in every byte.
    @usableFromInline static let newlines: UInt64 = 0x0A0A_0A0A_0A0A_0A0A

    /// 0x80 in exactly the bytes of `x` that are zero: an exact test, with no borrow from one byte into
    /// the next, so a mark is never false and the first and the last mark can both be trusted.
    @inlinable @inline(__always)
    package static func zeroMarks(_ x: UInt64) -> UInt64 {
        let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((x & low) &+ low) | x | low)
    }

    /// 0x80 in exactly the bytes of the little-endian `word` that are `\n`.
    @inlinable @inline(__always)
    package static func marks(_ word: UInt64) -> UInt64 { zeroMarks(word ^ newlines) }

    /// The first `\n` in `[start, end)`. Bytes from `readable` (at most `start`) may be read too: then
    /// a tail shorter than eight bytes is one load ending at `end`, with the bytes before `start`
    /// masked off.
    @inlinable @inline(__always)
    package static func first(
        _ start: UnsafeRawPointer,
        _ end: UnsafeRawPointer,
        readableFrom readable: UnsafeRawPointer? = nil
    ) -> UnsafeRawPointer? {
        var p = start
        while end - p >= 8 {
            let found = marks(UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)))
            if found != 0 { return p + found.trailingZeroBitCount / 8 }
            p += 8
        }
        guard p < end else { return nil }
        if let readable, end - readable >= 8 {
            // Bytes below `p` are made non-zero after the XOR, so they never match.
            let skipped = 8 &- (end - p)
            let below = (UInt64(1) &<< UInt64(truncatingIfNeeded: skipped &* 8)) &- 1
            let word = UInt64(littleEndian: (end - 8).loadUnaligned(as: UInt64.self))
            let found = zeroMarks((word ^ newlines) | below)
            return found != 0 ? end - 8 + found.trailingZeroBitCount / 8 : nil
        }
        while p < end {
            if p.load(as: UInt8.self) == 0x0A { return p }
            p += 1
        }
        return nil
    }

    /// The index of the last `\n` in `count` bytes at `base` (8 to 32), or -1: whole words, the last
    /// one ending at the chunk's end, the last word with a mark giving the index by its leading zeros.
    @inlinable @inline(__always)
    package static func last(_ base: UnsafeRawPointer, count: Int) -> Int {
        @inline(__always)
        func marksAt(_ offset: Int) -> UInt64 {
            marks(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
        }
        @inline(__always)
        func index(_ offset: Int, _ marks: UInt64) -> Int {
            offset &+ (63 &- marks.leadingZeroBitCount) &>> 3
        }
        let tail = count &- 8
        let last = marksAt(tail)
        if last != 0 { return index(tail, last) }
        if count > 24 {
            let third = marksAt(16)
            if third != 0 { return index(16, third) }
        }
        if count > 16 {
            let second = marksAt(8)
            if second != 0 { return index(8, second) }
        }
        let first = marksAt(0)
        return first != 0 ? index(0, first) : -1
    }
}
