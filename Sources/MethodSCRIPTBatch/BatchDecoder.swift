import MethodSCRIPT

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
        let counts =
            fast
            ? decodeLinesFast(origin: base, from: base, to: end, limit: end, sink: &sink, errors: &batch.errors)
            : decodeLines(
                origin: base,
                from: base,
                to: end,
                limit: end,
                sink: &sink,
                errors: &batch.errors,
                hex: hex,
                fast: false
            )
        batch.setCount(sink.count)
        batch.lineCount = counts.lines
        batch.packageCount = counts.packages
    }

    /// `decodeLines` on the fast path, as one function the one- and two-thread decodes share: the
    /// loop compiles once, with the sink in registers.
    @inline(never)
    static func decodeLinesFast(
        origin base: UnsafeRawPointer,
        from start: UnsafeRawPointer,
        to stop: UnsafeRawPointer,
        limit end: UnsafeRawPointer,
        firstLine lineBase: Int = 0,
        sink: inout ColumnSink,
        errors: inout [BatchError]
    ) -> (lines: Int, packages: Int) {
        var local = sink
        defer { sink = local }
        return decodeLines(
            origin: base,
            from: start,
            to: stop,
            limit: end,
            firstLine: lineBase,
            sink: &local,
            errors: &errors,
            hex: SWARHex.self,
            fast: true
        )
    }

    /// Decodes the lines that start in `[start, stop)` (`start` is a line start), reading up to
    /// `limit` (the buffer's end); offsets are counted from `origin` (the buffer's start), line
    /// numbers from `lineBase + 1` at `start`; returns the lines and packages seen. When `fast`, a `P`
    /// line goes through `decodeBodyFast` in the loop; every other line (and a `P` line it gives up
    /// on) goes to `decodeLine`, out of line when `fast` so the loop keeps its state in registers.
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
                lines &+= 1
                sink.lineNumber = Int32(truncatingIfNeeded: lines)
                if fast {
                    if p.load(as: UInt8.self) == 0x50 {
                        let rollback = sink.count
                        // The `\n` it returns is a byte of the buffer: the next line starts after it.
                        if let newline = PackageDecoder.decodeBodyFast(p + 1, end: end, tables: tables, sink: &sink) {
                            packages &+= 1
                            p = newline + 1
                            continue
                        }
                        sink.count = rollback
                    }
                    p = decodeLineOutOfLine(
                        p,
                        origin: base,
                        limit: end,
                        line: lines,
                        tables: tables,
                        sink: &sink,
                        errors: &errors,
                        packages: &packages
                    )
                } else {
                    p = decodeLine(
                        p,
                        origin: base,
                        limit: end,
                        line: lines,
                        tables: tables,
                        sink: &sink,
                        errors: &errors,
                        packages: &packages,
                        hex: hex
                    )
                }
            }
        }
        return (lines - lineBase, packages)
    }

    /// `decodeLine` with SWAR hex, kept out of the fast loop.
    @inline(never)
    static func decodeLineOutOfLine(
        _ lineStart: UnsafeRawPointer,
        origin base: UnsafeRawPointer,
        limit end: UnsafeRawPointer,
        line: Int,
        tables: DecodeTables,
        sink: inout ColumnSink,
        errors: inout [BatchError],
        packages: inout Int
    ) -> UnsafeRawPointer {
        decodeLine(
            lineStart,
            origin: base,
            limit: end,
            line: line,
            tables: tables,
            sink: &sink,
            errors: &errors,
            packages: &packages,
            hex: SWARHex.self
        )
    }

    /// Decodes the line at `lineStart` (line number `line`) with `decodeBody`: a `P` line's values go
    /// to `sink` and count in `packages`; a malformed `P` line leaves no values and becomes a located
    /// error, other lines are skipped. Returns the next line's start (or `end`).
    @inline(__always)
    static func decodeLine<H: HexStrategy>(
        _ lineStart: UnsafeRawPointer,
        origin base: UnsafeRawPointer,
        limit end: UnsafeRawPointer,
        line: Int,
        tables: DecodeTables,
        sink: inout ColumnSink,
        errors: inout [BatchError],
        packages: inout Int,
        hex: H.Type
    ) -> UnsafeRawPointer {
        var failure: PackageFailure?
        if lineStart.load(as: UInt8.self) == 0x50 {
            let rollback = sink.count
            do throws(PackageFailure) {
                let stop = try PackageDecoder.decodeBody(lineStart + 1, end: end, tables: tables, hex: hex, sink: &sink)
                packages &+= 1
                return stop < end ? stop + 1 : end
            } catch {
                sink.count = rollback
                failure = error
            }
        }
        let lineEnd = NewlineSearch.first(lineStart, end) ?? end
        if let failure, !isDeviceError(lineStart, lineEnd) {
            // A field cut short near the buffer's end fails at `end`: it is the line's end.
            let offset = min(failure.index(from: base), lineEnd - base)
            let atNewline = base + offset == lineEnd && lineEnd < end
            let error = ParseError(
                line: line,
                offset: offset,
                column: offset - (lineStart - base),
                reason: atNewline && failure.reason != .emptyPackage ? .truncated : failure.reason
            )
            errors.append(BatchError(error: error, lineRange: (lineStart - base)..<(lineEnd - base)))
        }
        return lineEnd < end ? lineEnd + 1 : end
    }

    /// A device error line (`[echo]!XXXX…`) is a reply, not a malformed line.
    static func isDeviceError(_ start: UnsafeRawPointer, _ end: UnsafeRawPointer) -> Bool {
        ReplyParser.errorReply(UnsafeRawBufferPointer(start: start, count: end - start)) != nil
    }
}
