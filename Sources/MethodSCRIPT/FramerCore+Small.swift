/// The path for small chunks: at 20 bytes a line arrives in two chunks or more, so it is gathered
/// anyway. The chunk is copied whole behind the pending bytes, its newlines are found at once as a
/// bit mask, and the lines they end are handed out from `storage`.
extension FramerCore {
    /// The largest chunk that takes `feedSmall`.
    static let smallChunk = 32

    /// Room in `storage` past `maximumLineLength`: a small chunk copied behind a full line (or the
    /// newline written after it by `finish`).
    static let storageSlack = smallChunk + 1

    @inline(__always)
    func feedSmall(_ base: UnsafeRawPointer, _ count: Int, _ body: (FramedLine) -> Void) {
        guard count > 0 else { return }
        let pending = state.pointee.pending
        let chunkOffset = state.pointee.byteCount
        state.pointee.byteCount = chunkOffset &+ count
        copySmall(from: base, to: storage + pending, count: count)
        var newlines = Self.newlineBits(base, count: count)
        // Lines are handed out from `storage`, where the chunk now follows the pending bytes.
        var lineStart = 0
        while newlines != 0 {
            let newline = pending &+ newlines.trailingZeroBitCount
            newlines &= newlines &- 1
            guard base.load(fromByteOffset: newline &- pending, as: UInt8.self) == 0x0A else { continue }
            let length = newline &- lineStart
            let tooLong = length > maximumLineLength || (lineStart == 0 && state.pointee.overflowed)
            let kept = min(length, maximumLineLength)
            var line = UnsafeRawBufferPointer(start: storage + lineStart, count: kept)
            if !tooLong, kept > 0, storage.load(fromByteOffset: newline &- 1, as: UInt8.self) == 0x0D {
                line = UnsafeRawBufferPointer(start: storage + lineStart, count: kept &- 1)
            }
            let offset = lineStart == 0 ? state.pointee.lineStart : chunkOffset &+ (lineStart &- pending)
            state.pointee.lineCount &+= 1
            body(FramedLine(bytes: line, number: state.pointee.lineCount, offset: offset, isTooLong: tooLong))
            lineStart = newline &+ 1
        }
        guard lineStart > 0 else {
            // The line goes on: keep at most `maximumLineLength` of it.
            let total = pending &+ count
            state.pointee.pending = min(total, maximumLineLength)
            if total > maximumLineLength { state.pointee.overflowed = true }
            return
        }
        // The unfinished line after the last newline (shorter than the chunk) moves to the front,
        // copied again from the chunk.
        let rest = pending &+ count &- lineStart
        copySmall(from: base + (count &- rest), to: storage, count: rest)
        state.pointee.overflowed = rest > maximumLineLength
        state.pointee.pending = min(rest, maximumLineLength)
        state.pointee.lineStart = chunkOffset &+ (count &- rest)
    }

    /// One bit per `\n` in the chunk (`count` at most 32), and possibly bits for `\u{0B}` bytes right
    /// after one (the caller checks each byte): whole words (the last one ending at the chunk's end,
    /// overlapping the one before it), each with the classic zero-byte test, its marks gathered
    /// into a byte by a multiply.
    @inline(__always)
    static func newlineBits(_ base: UnsafeRawPointer, count: Int) -> UInt32 {
        @inline(__always)
        func bits(_ offset: Int) -> UInt32 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let x = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) ^ (ones &* 0x0A)
            // 0x80 in every byte of `x` that is zero; a borrow can also mark a 0x01 byte above one.
            let zero = (x &- ones) & ~x & (ones &* 0x80)
            return UInt32(truncatingIfNeeded: ((zero >> 7) &* 0x0102_0408_1020_4080) >> 56)
        }
        guard count >= 8 else {
            var all: UInt32 = 0
            for index in 0..<count where base.load(fromByteOffset: index, as: UInt8.self) == 0x0A {
                all |= 1 &<< UInt32(truncatingIfNeeded: index)
            }
            return all
        }
        var all = bits(0) | bits(count &- 8) &<< UInt32(truncatingIfNeeded: count &- 8)
        if count > 16 { all |= bits(8) &<< 8 }
        if count > 24 { all |= bits(16) &<< 16 }
        return all
    }
}
