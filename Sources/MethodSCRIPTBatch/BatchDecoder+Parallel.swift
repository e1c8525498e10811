import Dispatch
import MethodSCRIPT

/// The batch decode on two threads. The buffer is split at a line start a little after its middle.
/// The caller's thread decodes the first part; one of Dispatch's pool threads counts the first part
/// (`PackageCensus`: its lines, and an upper bound of its values that is exact for valid `P` lines)
/// and decodes the second part straight to where its values and line numbers belong. Only when the
/// first part had other lines or malformed ones (fewer values than the bound) are the second part's
/// values moved down. The result equals `decode(_:into:)`'s, errors and locations included.
extension BatchDecoder {
    /// Buffers shorter than this are decoded on the caller's thread alone.
    public static let minimumParallelBytes = 1 << 16

    /// Where the split goes, as a fraction of the buffer (numerator over 64): after the middle,
    /// because the pool thread counts the first part before decoding the second. The count costs
    /// about a fifth of the decode per byte when the input is not in cache, so both threads finish
    /// together at 1 / (2 − 0.2) of the buffer: 36/64 rounds it.
    static let splitPoint = 36

    /// Decodes `buffer` into `batch` (emptied first) on two threads when it is at least
    /// `minimumSplitBytes` long and has a line break after its middle, else as `decode(_:into:)`.
    public static func decodeInParallel(
        _ buffer: UnsafeRawBufferPointer,
        into batch: ColumnarBatch,
        minimumSplitBytes: Int = minimumParallelBytes
    ) {
        decodeSplit(buffer, into: batch, minimumSplitBytes: minimumSplitBytes, onTwoThreads: true)
    }

    /// The split decode; with `onTwoThreads` false both parts run one after the other on the
    /// caller's thread (the same result: the fuzz harness checks the split logic that way).
    static func decodeSplit(
        _ buffer: UnsafeRawBufferPointer,
        into batch: ColumnarBatch,
        minimumSplitBytes: Int,
        onTwoThreads: Bool
    ) {
        guard let base = buffer.baseAddress, buffer.count >= max(minimumSplitBytes, 2),
            let newline = NewlineSearch.first(base + buffer.count * splitPoint / 64, base + buffer.count),
            newline + 1 < base + buffer.count
        else {
            decode(buffer, into: batch)
            return
        }
        batch.removeAll()
        let end = base + buffer.count
        let split = newline + 1
        let firstCapacity = PackageDecoder.maximumVariables(lineLength: split - base)
        batch.reserve(firstCapacity + PackageDecoder.maximumVariables(lineLength: end - split))
        withUnsafeTemporaryAllocation(of: Part.self, capacity: 2) { parts in
            let shared = parts.baseAddress!
            shared.initialize(to: Part(sink: batch.sink(at: 0)))
            (shared + 1).initialize(to: Part(sink: batch.sink(at: 0)))
            defer { shared.deinitialize(count: 2) }
            swap(&parts[0].errors, &batch.errors)
            // Addresses cross to the pool thread as integers; each thread writes only its own part
            // and its own range of the columns, and `concurrentPerform` returns after both are done.
            let job = (base: UInt(bitPattern: base), split: UInt(bitPattern: split), end: UInt(bitPattern: end))
            let partsAddress = UInt(bitPattern: shared)
            let decodePart: @Sendable (Int) -> Void = { index in
                let part = UnsafeMutablePointer<Part>(bitPattern: partsAddress)! + index
                let base = UnsafeRawPointer(bitPattern: job.base)!
                let split = UnsafeRawPointer(bitPattern: job.split)!
                let end = UnsafeRawPointer(bitPattern: job.end)!
                // Local copies keep the sink in registers while decoding.
                var sink = part.pointee.sink
                var firstLine = 0
                if index == 1 {
                    let census = PackageCensus.count(base, split)
                    // A bound past what the first part can hold is not exact: no need to trust it.
                    sink.count = min(census.valueBound, firstCapacity)
                    firstLine = census.newlines
                    part.pointee.start = sink.count
                    part.pointee.firstLine = firstLine
                }
                var errors: [BatchError] = []
                swap(&errors, &part.pointee.errors)
                let counts = decodeLinesFast(
                    origin: base,
                    from: index == 0 ? base : split,
                    to: index == 0 ? split : end,
                    limit: end,
                    firstLine: firstLine,
                    sink: &sink,
                    errors: &errors
                )
                part.pointee.sink = sink
                swap(&errors, &part.pointee.errors)
                part.pointee.lines = counts.lines
                part.pointee.packages = counts.packages
            }
            if onTwoThreads {
                DispatchQueue.concurrentPerform(iterations: 2, execute: decodePart)
            } else {
                decodePart(0)
                decodePart(1)
            }
            let firstLines = parts[0].lines
            let firstCount = parts[0].sink.count
            let secondStart = parts[1].start
            let secondCount = parts[1].sink.count - secondStart
            // Both are zero unless the census overestimated (other or malformed lines in the first
            // part): then the second part's values move down behind the first's.
            let lineShift = firstLines - parts[1].firstLine
            if firstCount != secondStart || lineShift != 0 {
                batch.moveValues(
                    from: secondStart,
                    to: firstCount,
                    count: secondCount,
                    lineShift: Int32(truncatingIfNeeded: lineShift)
                )
            }
            swap(&parts[0].errors, &batch.errors)
            for item in parts[1].errors {
                var error = item.error
                error.line += lineShift
                batch.errors.append(BatchError(error: error, lineRange: item.lineRange))
            }
            batch.setCount(firstCount + secondCount)
            batch.lineCount = firstLines + parts[1].lines
            batch.packageCount = parts[0].packages + parts[1].packages
        }
    }

    /// One part's decoding state.
    struct Part {
        var sink: ColumnSink
        var errors: [BatchError] = []
        var lines = 0
        var packages = 0
        /// Where the part's values start in the columns, and the line number before its first line.
        var start = 0
        var firstLine = 0
    }
}
