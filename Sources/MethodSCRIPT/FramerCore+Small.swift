/// The one path for small chunks (what a BLE notification carries), shared by `LineFramer` and
/// `ReplyParser`: at 20 bytes a line arrives in two chunks or more, so it is gathered anyway. The
/// chunk is copied whole behind the pending bytes, only the position of its last `\n` is looked up,
/// and the complete lines before it are walked in `storage` by the caller's `line`, which handles
/// one line and returns the next one's start. The unfinished line after the last `\n` then moves to
/// the front.
///
/// It takes chunks of 8 to `smallChunk` bytes that keep the pending line within the limit
/// (`takesSmall`); every other chunk goes through the general path, which keeps the same state.
extension FramerCore {
    /// The largest chunk that takes `feedSmall`.
    static let smallChunk = 32

    /// Room in `storage` past `maximumLineLength`: a small chunk copied behind a full line (or the
    /// newline written after it by `finish`).
    static let storageSlack = smallChunk + 1

    /// Whether a chunk of `count` bytes takes the small path now.
    @inline(__always)
    func takesSmall(_ count: Int) -> Bool {
        count >= 8 && count <= Self.smallChunk && !state.pointee.overflowed
            && state.pointee.pending &+ count <= maximumLineLength
    }

    /// Feeds a chunk that `takesSmall`. `line` gets a line's start in `storage`, `stop` (the last `\n`,
    /// so the line ends at or before it) and the line's offset in the stream; it counts the line in
    /// `state.lineCount` and returns the next line's start (one past its `\n`).
    @inline(__always)
    func feedSmall(
        _ base: UnsafeRawPointer,
        _ count: Int,
        line: (_ start: UnsafeRawPointer, _ stop: UnsafeRawPointer, _ offset: Int) -> UnsafeRawPointer
    ) {
        let pending = state.pointee.pending
        let start = UnsafeRawPointer(storage)
        copySmall(from: base, to: storage + pending, count: count)
        state.pointee.byteCount &+= count
        let last = NewlineSearch.last(base, count: count)
        guard last >= 0 else {
            state.pointee.pending = pending &+ count
            return
        }
        let stop = start + (pending &+ last)
        var p = start
        var offset = state.pointee.lineStart
        repeat {
            let next = line(p, stop, offset)
            offset &+= next - p
            p = next
        } while p <= stop
        // The unfinished line after the last newline moves to the front, copied again from the chunk.
        let rest = (start + (pending &+ count)) - p
        copySmall(from: base + (count &- rest), to: storage, count: rest)
        state.pointee.pending = rest
        state.pointee.lineStart = offset
    }

    /// A framed line in `storage` from `start` to its `\n` (at most `stop`), `\r` stripped: the
    /// `LineFramer` side of `feedSmall`. Returns the next line's start.
    @inline(__always)
    func frameSmallLine(
        _ start: UnsafeRawPointer,
        stop: UnsafeRawPointer,
        offset: Int,
        _ body: (FramedLine) -> Void
    ) -> UnsafeRawPointer {
        let newline = NewlineSearch.first(start, stop + 1) ?? stop
        var length = newline - start
        if length > 0, (newline - 1).load(as: UInt8.self) == 0x0D { length -= 1 }
        state.pointee.lineCount &+= 1
        body(
            FramedLine(
                bytes: UnsafeRawBufferPointer(start: start, count: length),
                number: state.pointee.lineCount,
                offset: offset,
                isTooLong: false
            )
        )
        return newline + 1
    }
}
