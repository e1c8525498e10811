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

    /// Decodes `buffer` into `batch` (emptied first), reusing its storage.
    public static func decode(_ buffer: UnsafeRawBufferPointer, into batch: ColumnarBatch) {
        run(buffer, into: batch, hex: SWARHex.self)
    }

    /// The same decode with the scalar (one table lookup per digit) hex path: the reference the SWAR
    /// path is checked and measured against.
    public static func decodeScalarReference(_ buffer: UnsafeRawBufferPointer, into batch: ColumnarBatch) {
        run(buffer, into: batch, hex: ScalarHex.self)
    }

    @inline(__always)
    static func run<H: HexStrategy>(_ buffer: UnsafeRawBufferPointer, into batch: ColumnarBatch, hex: H.Type) {
        batch.removeAll()
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        batch.reserve(PackageDecoder.maximumVariables(lineLength: buffer.count))
        var sink = ColumnSink(
            line: batch.lineColumn,
            variable: batch.variableColumn,
            value: batch.valueColumn,
            status: batch.statusColumn,
            range: batch.rangeColumn,
            noise: batch.noiseColumn,
            flags: batch.flagsColumn,
            count: 0
        )
        let end = base + buffer.count
        var lines = 0
        var packages = 0
        PackageDecoder.withTables { tables in
            var p = base
            while p < end {
                lines += 1
                sink.lineNumber = Int32(truncatingIfNeeded: lines)
                let lineStart = p
                let first = p.load(as: UInt8.self)
                var failure: PackageFailure?
                if first == 0x50 {
                    let rollback = sink.count
                    do throws(PackageFailure) {
                        p = try PackageDecoder.decodeBody(p + 1, end: end, tables: tables, hex: hex, sink: &sink)
                        packages += 1
                        p += p < end ? 1 : 0
                        continue
                    } catch {
                        sink.count = rollback
                        failure = error
                    }
                }
                let position = failure.map { base + $0.index(from: base) } ?? p
                let lineEnd = LineFramer.findNewline(position, end) ?? end
                if let failure, !isDeviceError(lineStart, lineEnd) {
                    let offset = failure.index(from: base)
                    let atNewline = base + offset == lineEnd && lineEnd < end
                    let error = ParseError(
                        line: lines,
                        offset: offset,
                        column: offset - (lineStart - base),
                        reason: atNewline && failure.reason != .emptyPackage ? .truncated : failure.reason
                    )
                    batch.errors.append(BatchError(error: error, lineRange: (lineStart - base)..<(lineEnd - base)))
                }
                p = lineEnd < end ? lineEnd + 1 : end
            }
        }
        batch.setCount(sink.count)
        batch.lineCount = lines
        batch.packageCount = packages
    }

    /// A device error line (`[echo]!XXXX…`) is a reply, not a malformed line.
    static func isDeviceError(_ start: UnsafeRawPointer, _ end: UnsafeRawPointer) -> Bool {
        ReplyParser.errorReply(UnsafeRawBufferPointer(start: start, count: end - start)) != nil
    }
}
