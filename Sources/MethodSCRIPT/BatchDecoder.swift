/// Decodes a whole buffer of reply lines into a `ColumnarBatch`: every `P` line's values go to the
/// columns; malformed `P` lines become located `BatchError`s and decoding goes on at the next line.
/// Other lines are counted but not checked: `ReplyParser` validates the whole grammar. No allocation
/// per line.
public enum BatchDecoder {
    /// Decodes `buffer` with the SWAR hex path into a new batch.
    public static func decode(_ buffer: UnsafeRawBufferPointer) -> ColumnarBatch {
        let batch = ColumnarBatch()
        decode(buffer, into: batch)
        return batch
    }

    /// Decodes the bytes of an array.
    public static func decode(_ bytes: [UInt8]) -> ColumnarBatch {
        bytes.withUnsafeBytes { decode($0) }
    }

    /// Decodes `buffer` into `batch` (emptied first), reusing its storage: the fixed-width fast path
    /// (`PackageDecoder.decodeBodyFast`) for the common line shapes, `decodeBody` for the others.
    public static func decode(_ buffer: UnsafeRawBufferPointer, into batch: ColumnarBatch) {
        run(buffer, into: batch, hex: SWARHex.self, fast: true)
    }

    /// The same decode without the fast path and with the scalar (one table lookup per digit) hex
    /// path: the reference the fast paths are checked and measured against.
    public static func decodeScalarReference(_ buffer: UnsafeRawBufferPointer, into batch: ColumnarBatch) {
        run(buffer, into: batch, hex: ScalarHex.self, fast: false)
    }

    @inline(__always)
    static func run<H: HexStrategy>(
        _ buffer: UnsafeRawBufferPointer,
        into batch: ColumnarBatch,
        hex: H.Type,
        fast: Bool
    ) {
        batch.removeAll()
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        batch.reserve(PackageDecoder.maximumVariables(lineLength: buffer.count))
        var sink = batch.sink(at: 0)
        let end = base + buffer.count
        let counts = decodeLines(
            origin: base,
            from: base,
            to: end,
            limit: end,
            sink: &sink,
            errors: &batch.errors,
            hex: hex,
            fast: fast
        )
        batch.setCount(sink.count)
        batch.lineCount = counts.lines
        batch.packageCount = counts.packages
    }

    /// Decodes the lines that start in `[start, stop)` (`start` is a line start), reading up to
    /// `limit` (the buffer's end); offsets are counted from `origin` (the buffer's start), line
    /// numbers from `lineBase + 1` at `start`; returns the lines and packages seen. A `P` line goes
    /// through `decodeBodyFast` first when `fast`, else (or when it gives up) through `decodeBody`;
    /// values of a line that fails are discarded.
    @inline(__always)
    static func decodeLines<H: HexStrategy>(
        origin base: UnsafeRawPointer,
        from start: UnsafeRawPointer,
        to stop: UnsafeRawPointer,
        limit end: UnsafeRawPointer,
        firstLine lineBase: Int = 0,
        sink: inout ColumnSink,
        errors: inout [BatchError],
        hex: H.Type,
        fast: Bool
    ) -> (lines: Int, packages: Int) {
        var lines = lineBase
        var packages = 0
        PackageDecoder.withTables { tables in
            var p = start
            while p < stop {
                lines += 1
                sink.lineNumber = Int32(truncatingIfNeeded: lines)
                let lineStart = p
                let first = p.load(as: UInt8.self)
                var failure: PackageFailure?
                if first == 0x50 {
                    let rollback = sink.count
                    do throws(PackageFailure) {
                        if fast {
                            p = try PackageDecoder.decodeBodyEitherWay(p + 1, end: end, tables: tables, sink: &sink)
                        } else {
                            p = try PackageDecoder.decodeBody(p + 1, end: end, tables: tables, hex: hex, sink: &sink)
                        }
                        packages += 1
                        p += p < end ? 1 : 0
                        continue
                    } catch {
                        sink.count = rollback
                        failure = error
                    }
                }
                let lineEnd = LineFramer.findNewline(lineStart, end) ?? end
                if let failure, !isDeviceError(lineStart, lineEnd) {
                    // A field cut short near the buffer's end fails at `end`: it is the line's end.
                    let offset = min(failure.index(from: base), lineEnd - base)
                    let atNewline = base + offset == lineEnd && lineEnd < end
                    let error = ParseError(
                        line: lines,
                        offset: offset,
                        column: offset - (lineStart - base),
                        reason: atNewline && failure.reason != .emptyPackage ? .truncated : failure.reason
                    )
                    errors.append(BatchError(error: error, lineRange: (lineStart - base)..<(lineEnd - base)))
                }
                p = lineEnd < end ? lineEnd + 1 : end
            }
        }
        return (lines - lineBase, packages)
    }

    /// A device error line (`[echo]!XXXX…`) is a reply, not a malformed line.
    static func isDeviceError(_ start: UnsafeRawPointer, _ end: UnsafeRawPointer) -> Bool {
        ReplyParser.errorReply(UnsafeRawBufferPointer(start: start, count: end - start)) != nil
    }
}
