/// Splits a byte stream into lines. Chunks may end anywhere (BLE notifications split lines and carry
/// several); lines are handed out without their `\n` (and without a `\r` before it). A line that lies
/// whole inside one chunk is handed out in place; a line split across chunks is gathered in one
/// fixed buffer allocated at `init`, so memory stays bounded: a line longer than `maximumLineLength`
/// is handed out with `isTooLong` set and only its first `maximumLineLength` bytes.
public final class LineFramer {
    let core: FramerCore

    /// A framer that keeps lines of up to `maximumLineLength` bytes whole (newline excluded); it allocates
    /// its gather buffer here, once. `maximumLineLength` must be positive.
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
