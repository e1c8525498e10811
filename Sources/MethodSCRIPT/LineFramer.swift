/// Splits a byte stream into lines. Chunks may end anywhere (BLE notifications split lines and carry
/// several); lines are handed out without their `\n` (and without a `\r` before it). A line that lies
/// whole inside one chunk is handed out in place; a line split across chunks is gathered in one
/// fixed buffer allocated at `init`, so memory stays bounded: a line longer than `maximumLineLength`
/// is handed out with `isTooLong` set and only its first `maximumLineLength` bytes.
public final class LineFramer {
    /// The longest line kept whole, newline excluded.
    public let maximumLineLength: Int
    /// Lines handed out so far.
    public private(set) var lineCount = 0
    /// Bytes consumed so far.
    public private(set) var byteCount = 0

    private let storage: UnsafeMutableRawPointer
    private var pending = 0
    private var overflowed = false
    private var lineStart = 0

    public init(maximumLineLength: Int = MethodSCRIPTLimits.defaultMaximumReplyLineLength) {
        precondition(maximumLineLength > 0, "maximumLineLength must be positive")
        self.maximumLineLength = maximumLineLength
        storage = UnsafeMutableRawPointer.allocate(byteCount: maximumLineLength, alignment: 8)
    }

    deinit { storage.deallocate() }

    /// Bytes of an unfinished line held from earlier chunks.
    public var pendingByteCount: Int { pending }

    /// Feeds one chunk; `body` is called for every line it completes, in order.
    public func feed(_ chunk: UnsafeRawBufferPointer, _ body: (FramedLine) -> Void) {
        guard let base = chunk.baseAddress else { return }
        let end = base + chunk.count
        var p = base
        while p < end {
            guard let newline = Self.findNewline(p, end) else {
                append(p, end - p)
                break
            }
            let length = newline - p
            if pending == 0 && !overflowed {
                let kept = min(length, maximumLineLength)
                deliver(UnsafeRawBufferPointer(start: p, count: kept), tooLong: length > kept, consumed: length + 1, body)
            } else {
                append(p, length)
                let line = UnsafeRawBufferPointer(start: storage, count: pending)
                deliver(line, tooLong: overflowed, consumed: 1, body)
            }
            p = newline + 1
        }
    }

    /// Feeds the bytes of an array.
    public func feed(_ bytes: [UInt8], _ body: (FramedLine) -> Void) {
        bytes.withUnsafeBytes { feed($0, body) }
    }

    /// Hands out a last line that has no newline (end of a file), if any.
    public func finish(_ body: (FramedLine) -> Void) {
        guard pending > 0 || overflowed else { return }
        deliver(UnsafeRawBufferPointer(start: storage, count: pending), tooLong: overflowed, consumed: 0, body)
    }

    /// Forgets an unfinished line (e.g. after a reconnect).
    public func reset() {
        pending = 0
        overflowed = false
        lineStart = byteCount
    }

    @inline(__always)
    private func append(_ bytes: UnsafeRawPointer, _ count: Int) {
        byteCount += count
        let room = maximumLineLength - pending
        let copied = min(room, count)
        if copied > 0 { (storage + pending).copyMemory(from: bytes, byteCount: copied) }
        pending += copied
        if count > copied { overflowed = true }
    }

    @inline(__always)
    private func deliver(
        _ raw: UnsafeRawBufferPointer,
        tooLong: Bool,
        consumed: Int,
        _ body: (FramedLine) -> Void
    ) {
        var line = raw
        if !tooLong, let last = line.last, last == 0x0D { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        lineCount += 1
        // `consumed`: the bytes of this line not yet counted (`append` counted the gathered ones).
        let offset = lineStart
        byteCount += consumed
        body(FramedLine(bytes: line, number: lineCount, offset: offset, isTooLong: tooLong))
        pending = 0
        overflowed = false
        lineStart = byteCount
    }

    /// The first `\n` in `[p, end)`, eight bytes at a time.
    @inline(__always)
    static func findNewline(_ start: UnsafeRawPointer, _ end: UnsafeRawPointer) -> UnsafeRawPointer? {
        var p = start
        while end - p >= 8 {
            let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) ^ 0x0A0A_0A0A_0A0A_0A0A
            let zero = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
            if zero != 0 { return p + zero.trailingZeroBitCount / 8 }
            p += 8
        }
        while p < end {
            if p.load(as: UInt8.self) == 0x0A { return p }
            p += 1
        }
        return nil
    }
}

/// One line from a `LineFramer`. `bytes` is valid only during the callback that receives it.
public struct FramedLine {
    /// The line without its newline (only the first `maximumLineLength` bytes when `isTooLong`).
    public let bytes: UnsafeRawBufferPointer
    /// 1-based line number in the stream.
    public let number: Int
    /// Byte offset in the stream of the line's first byte.
    public let offset: Int
    /// The line was longer than the framer's limit.
    public let isTooLong: Bool
}
