/// Splits a byte stream into lines. Chunks may end anywhere (BLE notifications split lines and carry
/// several); lines are handed out without their `\n` (and without a `\r` before it). A line that lies
/// whole inside one chunk is handed out in place; a line split across chunks is gathered in one
/// fixed buffer allocated at `init`, so memory stays bounded: a line longer than `maximumLineLength`
/// is handed out with `isTooLong` set and only its first `maximumLineLength` bytes.
public final class LineFramer {
    let core: FramerCore

    public init(maximumLineLength: Int = MethodSCRIPTLimits.defaultMaximumReplyLineLength) {
        core = FramerCore(maximumLineLength: maximumLineLength)
    }

    deinit { core.deallocate() }

    /// The longest line kept whole, newline excluded.
    public var maximumLineLength: Int { core.maximumLineLength }
    /// Lines handed out so far.
    public var lineCount: Int { core.state.pointee.lineCount }
    /// Bytes consumed so far.
    public var byteCount: Int { core.state.pointee.byteCount }
    /// Bytes of an unfinished line held from earlier chunks.
    public var pendingByteCount: Int { core.state.pointee.pending }

    /// Feeds one chunk; `body` is called for every line it completes, in order.
    public func feed(_ chunk: UnsafeRawBufferPointer, _ body: (FramedLine) -> Void) {
        core.feed(chunk, body)
    }

    /// Feeds the bytes of an array.
    public func feed(_ bytes: [UInt8], _ body: (FramedLine) -> Void) {
        bytes.withUnsafeBytes { core.feed($0, body) }
    }

    /// Hands out a last line that has no newline (end of a file), if any.
    public func finish(_ body: (FramedLine) -> Void) { core.finish(body) }

    /// Forgets an unfinished line (e.g. after a reconnect).
    public func reset() { core.reset() }

    /// The first `\n` in `[start, end)`, eight bytes at a time. Bytes from `readable` (at most `start`)
    /// may be read too: then a tail shorter than eight bytes is one load ending at `end`, with the
    /// bytes before `start` masked off.
    @inline(__always)
    static func findNewline(
        _ start: UnsafeRawPointer,
        _ end: UnsafeRawPointer,
        readableFrom readable: UnsafeRawPointer? = nil
    ) -> UnsafeRawPointer? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var p = start
        while end - p >= 8 {
            let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) ^ (ones &* 0x0A)
            let zero = (word &- ones) & ~word & (ones &* 0x80)
            if zero != 0 { return p + zero.trailingZeroBitCount / 8 }
            p += 8
        }
        guard p < end else { return nil }
        if let readable, end - readable >= 8 {
            // Bytes below `p` are made non-zero, so they neither match nor borrow into the others.
            let skipped = 8 &- (end - p)
            let below = (UInt64(1) &<< UInt64(truncatingIfNeeded: skipped &* 8)) &- 1
            let word = (UInt64(littleEndian: (end - 8).loadUnaligned(as: UInt64.self)) ^ (ones &* 0x0A)) | below
            let zero = (word &- ones) & ~word & (ones &* 0x80)
            return zero != 0 ? end - 8 + zero.trailingZeroBitCount / 8 : nil
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
