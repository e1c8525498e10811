import Dispatch

/// The batch decode on two threads: the buffer is split at the first newline after its middle, each
/// half is decoded into its own region of the same columns (the caller's thread and one of
/// Dispatch's pool threads), then the second half's values are moved down behind the first's and
/// their line numbers shifted. The result equals `decode(_:into:)`'s, errors and locations included.
extension BatchDecoder {
    /// Buffers shorter than this are decoded on the caller's thread alone.
    public static let minimumParallelBytes = 1 << 16

    /// Decodes `buffer` into `batch` (emptied first) on two threads when it is at least
    /// `minimumSplitBytes` long and has a line break after its middle, else as `decode(_:into:)`.
    public static func decodeInParallel(
        _ buffer: UnsafeRawBufferPointer,
        into batch: ColumnarBatch,
        minimumSplitBytes: Int = minimumParallelBytes
    ) {
        decodeSplit(buffer, into: batch, minimumSplitBytes: minimumSplitBytes, onTwoThreads: true)
    }

    /// The split decode; with `onTwoThreads` false both halves run one after the other on the
    /// caller's thread (the same result: the fuzz harness checks the split logic that way).
    static func decodeSplit(
        _ buffer: UnsafeRawBufferPointer,
        into batch: ColumnarBatch,
        minimumSplitBytes: Int,
        onTwoThreads: Bool
    ) {
        guard let base = buffer.baseAddress, buffer.count >= max(minimumSplitBytes, 2),
            let newline = LineFramer.findNewline(base + buffer.count / 2, base + buffer.count),
            newline + 1 < base + buffer.count
        else {
            decode(buffer, into: batch)
            return
        }
        batch.removeAll()
        let end = base + buffer.count
        let split = newline + 1
        let secondStart = PackageDecoder.maximumVariables(lineLength: split - base)
        batch.reserve(secondStart + PackageDecoder.maximumVariables(lineLength: end - split))
        withUnsafeTemporaryAllocation(of: Part.self, capacity: 2) { parts in
            let shared = parts.baseAddress!
            shared.initialize(to: Part(sink: batch.sink(at: 0)))
            (shared + 1).initialize(to: Part(sink: batch.sink(at: secondStart)))
            defer { shared.deinitialize(count: 2) }
            swap(&parts[0].errors, &batch.errors)
            // Addresses cross to the pool thread as integers; each thread writes only its own part
            // and its own range of the columns, and `concurrentPerform` returns after both are done.
            let job = (base: UInt(bitPattern: base), split: UInt(bitPattern: split), end: UInt(bitPattern: end))
            let partsAddress = UInt(bitPattern: shared)
            let decodeHalf: @Sendable (Int) -> Void = { index in
                let part = UnsafeMutablePointer<Part>(bitPattern: partsAddress)! + index
                let base = UnsafeRawPointer(bitPattern: job.base)!
                let end = UnsafeRawPointer(bitPattern: job.end)!
                let start = index == 0 ? base : UnsafeRawPointer(bitPattern: job.split)!
                let stop = index == 0 ? UnsafeRawPointer(bitPattern: job.split)! : end
                // Local copies keep the sink in registers while decoding.
                var sink = part.pointee.sink
                var errors: [BatchError] = []
                swap(&errors, &part.pointee.errors)
                let counts = decodeLines(
                    origin: base,
                    from: start,
                    to: stop,
                    limit: end,
                    sink: &sink,
                    errors: &errors,
                    hex: SWARHex.self,
                    fast: true
                )
                part.pointee.sink = sink
                swap(&errors, &part.pointee.errors)
                part.pointee.lines = counts.lines
                part.pointee.packages = counts.packages
            }
            if onTwoThreads {
                DispatchQueue.concurrentPerform(iterations: 2, execute: decodeHalf)
            } else {
                decodeHalf(0)
                decodeHalf(1)
            }
            let firstLines = parts[0].lines
            let firstCount = parts[0].sink.count
            let secondCount = parts[1].sink.count - secondStart
            batch.moveValues(from: secondStart, to: firstCount, count: secondCount, lineShift: Int32(firstLines))
            swap(&parts[0].errors, &batch.errors)
            for item in parts[1].errors {
                var error = item.error
                error.line += firstLines
                batch.errors.append(BatchError(error: error, lineRange: item.lineRange))
            }
            batch.setCount(firstCount + secondCount)
            batch.lineCount = firstLines + parts[1].lines
            batch.packageCount = parts[0].packages + parts[1].packages
        }
    }

    /// One half's decoding state.
    struct Part {
        var sink: ColumnSink
        var errors: [BatchError] = []
        var lines = 0
        var packages = 0
    }
}
