/// The parser's path for small chunks (what a BLE notification carries): the chunk is copied behind
/// the pending bytes, and only the position of its last `\n` is looked up. The complete lines before
/// it are then taken one after another from the framer's buffer: a `P` line of the fixed-width shapes
/// is decoded straight away, and the decoder's own checks find its `\n` (every byte up to it is a
/// validated field byte, so it is the line's first); any other line goes to `parse`.
///
/// It takes chunks of 8 to `FramerCore.smallChunk` bytes that keep the pending line within the
/// limit; every other chunk goes through the framer's general path, which keeps the same state.
extension ReplyParser {
    @inline(__always)
    func feedSmall(_ base: UnsafeRawPointer, _ count: Int, _ handler: (ReplyEvent, LineLocation) -> Void) {
        let framing = framer.state
        let pending = framing.pointee.pending
        guard !framing.pointee.overflowed, pending &+ count <= framer.maximumLineLength else {
            feedGeneral(UnsafeRawBufferPointer(start: base, count: count), handler)
            return
        }
        let storage = UnsafeRawPointer(framer.storage)
        framer.copySmall(from: base, to: framer.storage + pending, count: count)
        framing.pointee.byteCount &+= count
        let last = Self.lastNewline(base, count: count)
        guard last >= 0 else {
            framing.pointee.pending = pending &+ count
            return
        }
        // Lines end at or before `stop`, the last newline; `p` is always a line's start.
        let stop = storage + (pending &+ last)
        var p = storage
        var offset = framing.pointee.lineStart
        repeat {
            let next: UnsafeRawPointer
            var sink = SampleBufferSink(buffer: samples)
            if p.load(as: UInt8.self) == 0x50, !state.pointee.inVersion,
                let newline = PackageDecoder.decodeBodyFast(p + 1, end: stop + 1, tables: tables, sink: &sink)
            {
                framing.pointee.lineCount &+= 1
                let location = LineLocation(line: framing.pointee.lineCount, offset: offset)
                handler(.package(UnsafeBufferPointer(start: samples.baseAddress, count: sink.count)), location)
                next = newline + 1
            } else {
                next = otherLine(p, stop: stop, offset: offset, handler)
            }
            offset &+= next - p
            p = next
        } while p <= stop
        // The unfinished line after the last newline moves to the front, copied again from the chunk.
        let rest = (storage + (pending &+ count)) - p
        framer.copySmall(from: base + (count &- rest), to: framer.storage, count: rest)
        framing.pointee.pending = rest
        framing.pointee.lineStart = offset
    }

    /// Any line but a fixed-width `P` line, from `start` to its newline (at most `stop`); returns the
    /// next line's start.
    @inline(never)
    func otherLine(
        _ start: UnsafeRawPointer,
        stop: UnsafeRawPointer,
        offset: Int,
        _ handler: (ReplyEvent, LineLocation) -> Void
    ) -> UnsafeRawPointer {
        let newline = LineFramer.findNewline(start, stop + 1) ?? stop
        var length = newline - start
        if length > 0, (newline - 1).load(as: UInt8.self) == 0x0D { length -= 1 }
        framer.state.pointee.lineCount &+= 1
        let number = framer.state.pointee.lineCount
        parse(
            FramedLine(
                bytes: UnsafeRawBufferPointer(start: start, count: length),
                number: number,
                offset: offset,
                isTooLong: false
            ),
            handler
        )
        return newline + 1
    }

    /// Chunks the small path does not take, through the framer.
    @inline(never)
    func feedGeneral(_ chunk: UnsafeRawBufferPointer, _ handler: (ReplyEvent, LineLocation) -> Void) {
        framer.feed(chunk) { line in parse(line, handler) }
    }

    /// The index of the last `\n` in the chunk (`count` from 8 to 32), or -1: whole words, the last
    /// one ending at the chunk's end, each with an exact zero-byte test (no false marks), the last
    /// word with a mark giving the index by its leading zeros.
    @inline(__always)
    static func lastNewline(_ base: UnsafeRawPointer, count: Int) -> Int {
        @inline(__always)
        func marks(_ offset: Int) -> UInt64 {
            let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            let x =
                UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                ^ 0x0A0A_0A0A_0A0A_0A0A
            // 0x80 exactly in the bytes of `x` that are zero.
            return ~(((x & low) &+ low) | x | low)
        }
        @inline(__always)
        func index(_ offset: Int, _ marks: UInt64) -> Int {
            offset &+ (63 &- marks.leadingZeroBitCount) &>> 3
        }
        let tail = count &- 8
        let last = marks(tail)
        if last != 0 { return index(tail, last) }
        if count > 24 {
            let third = marks(16)
            if third != 0 { return index(16, third) }
        }
        if count > 16 {
            let second = marks(8)
            if second != 0 { return index(8, second) }
        }
        let first = marks(0)
        return first != 0 ? index(0, first) : -1
    }
}
