/// The parser's side of the framer's small-chunk path (`FramerCore.feedSmall`): each complete line is
/// taken from the framer's buffer; a `P` line of the fixed-width shapes is decoded straight away, and
/// the decoder's own checks find its `\n` (every byte up to it is a validated field byte, so it is the
/// line's first); any other line goes to `parse`.
extension ReplyParser {
    @inline(__always)
    func feedSmall(_ base: UnsafeRawPointer, _ count: Int, _ handler: (ReplyEvent, LineLocation) -> Void) {
        framer.feedSmall(base, count) { p, stop, offset in
            var sink = SampleBufferSink(buffer: samples)
            if p.load(as: UInt8.self) == 0x50, !state.pointee.inVersion,
                let newline = PackageDecoder.decodeBodyFast(p + 1, end: stop + 1, tables: tables, sink: &sink)
            {
                framer.state.pointee.lineCount &+= 1
                let location = LineLocation(line: framer.state.pointee.lineCount, offset: offset)
                handler(.package(UnsafeBufferPointer(start: samples.baseAddress, count: sink.count)), location)
                return newline + 1
            }
            return otherLine(p, stop: stop, offset: offset, handler)
        }
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
        framer.frameSmallLine(start, stop: stop, offset: offset) { line in parse(line, handler) }
    }

    /// Chunks the small path does not take, through the framer.
    @inline(never)
    func feedGeneral(_ chunk: UnsafeRawBufferPointer, _ handler: (ReplyEvent, LineLocation) -> Void) {
        framer.feed(chunk) { line in parse(line, handler) }
    }
}
