import Dispatch

/// The batch decode on two threads. The buffer is cut at line starts into blocks of about
/// `blockBytes`; the first `splitPoint`/64 of them are the front part, the rest the back part. The
/// caller's thread decodes the front part block after block. One of Dispatch's pool threads counts
/// the front part (`PackageCensus`: its lines, and an upper bound of its values that is exact for
/// valid `P` lines), which tells where the back part's values and line numbers go, and decodes the
/// back part block after block, straight to that place. A thread that runs out of blocks takes the
/// other part's last block not yet taken (`SplitRun`), so that a core the host slows down costs its
/// share only. Only when a block placed by a bound had other or malformed lines (fewer values than
/// the bound) are the values after it moved down. The result equals `decode(_:into:)`'s, errors and
/// locations included.
extension BatchDecoder {
    /// Buffers shorter than this are decoded on the caller's thread alone.
    public static let minimumParallelBytes = 1 << 16

    /// Where the parts meet, as a fraction of the blocks (numerator over 64): a little after the
    /// middle, because the pool thread counts the front part before decoding the back part.
    static let splitPoint = 34

    /// The block size aimed at: what a thread that runs out takes from the other at a time.
    static let blockBytes = 1 << 20

    /// The most blocks a buffer is cut into.
    static let maximumBlocks = 256

    /// Decodes `buffer` into `batch` (emptied first) on two threads when it is at least
    /// `minimumSplitBytes` long, else as `decode(_:into:)`.
    public static func decodeInParallel(
        _ buffer: UnsafeRawBufferPointer,
        into batch: ColumnarBatch,
        minimumSplitBytes: Int = minimumParallelBytes
    ) {
        guard buffer.count >= max(minimumSplitBytes, 2) else {
            decode(buffer, into: batch)
            return
        }
        let blocks = min(maximumBlocks, max(2, buffer.count / blockBytes))
        decodeSplit(buffer, into: batch, blocks: blocks, schedule: nil)
    }

    /// The split decode in about `blocks` blocks. With a `schedule` both parts run on the caller's
    /// thread, a step at a time, the front part's when `schedule()` is true: the same result for
    /// every interleaving (the tests and the fuzz harness check the placement logic that way).
    static func decodeSplit(
        _ buffer: UnsafeRawBufferPointer,
        into batch: ColumnarBatch,
        blocks requested: Int,
        schedule: (() -> Bool)?
    ) {
        guard let base = buffer.baseAddress, !buffer.isEmpty, requested > 1 else {
            decode(buffer, into: batch)
            return
        }
        let end = base + buffer.count
        let starts = blockStarts(base, end, requested)
        guard starts.count > 1 else {
            decode(buffer, into: batch)
            return
        }
        batch.removeAll()
        let count = starts.count
        withUnsafeTemporaryAllocation(of: Block.self, capacity: count) { table in
            var capacity = 0
            for (index, start) in starts.enumerated() {
                let stop = index + 1 < count ? starts[index + 1] : end
                (table.baseAddress! + index).initialize(to: Block(start: start, stop: stop))
                capacity += PackageDecoder.maximumVariables(lineLength: stop - start)
            }
            defer { table.baseAddress!.deinitialize(count: count) }
            batch.reserve(capacity)
            let run = SplitRun(
                origin: base,
                end: end,
                blocks: table.baseAddress!,
                count: count,
                frontCount: min(count - 1, max(1, (count * splitPoint + 32) / 64)),
                sink: batch.sink(at: 0)
            )
            if let schedule {
                var frontDone = false
                var backDone = false
                while !(frontDone && backDone) {
                    if backDone || (!frontDone && schedule()) {
                        frontDone = !run.stepFront()
                    } else {
                        backDone = !run.stepBack()
                    }
                }
            } else {
                // Each role's steps run on one thread; `concurrentPerform` returns when both are done.
                DispatchQueue.concurrentPerform(iterations: 2) { role in
                    if role == 0 {
                        while run.stepFront() {}
                    } else {
                        while run.stepBack() {}
                    }
                }
            }
            gather(table, into: batch)
        }
    }

    /// Block starts: the first line start at or after each `index / requested` of the buffer, without
    /// repeats and without an empty last block.
    static func blockStarts(_ base: UnsafeRawPointer, _ end: UnsafeRawPointer, _ requested: Int) -> [UnsafeRawPointer] {
        var starts = [base]
        starts.reserveCapacity(requested)
        let length = end - base
        for index in 1..<requested {
            let from = max(base + length / requested * index, starts[starts.count - 1])
            guard let newline = LineFramer.findNewline(from, end), newline + 1 < end else { break }
            starts.append(newline + 1)
        }
        return starts
    }

    /// Closes the gaps that bounds above the true counts left, fixes line numbers should a census
    /// ever disagree with the decode, and sets the batch's counts and errors.
    static func gather(_ table: UnsafeMutableBufferPointer<Block>, into batch: ColumnarBatch) {
        var values = 0
        var lines = 0
        var packages = 0
        for block in table {
            let lineShift = lines - block.firstLine
            if values != block.valueStart || lineShift != 0 {
                batch.moveValues(
                    from: block.valueStart,
                    to: values,
                    count: block.values,
                    lineShift: Int32(truncatingIfNeeded: lineShift)
                )
            }
            for item in block.errors {
                var error = item.error
                error.line += lineShift
                batch.errors.append(BatchError(error: error, lineRange: item.lineRange))
            }
            values += block.values
            lines += block.lines
            packages += block.packages
        }
        batch.setCount(values)
        batch.lineCount = lines
        batch.packageCount = packages
    }

    /// One block: its bytes, where its values and lines went, and what it held.
    struct Block {
        let start: UnsafeRawPointer
        let stop: UnsafeRawPointer
        /// Where the block's values start in the columns, and the line number before its first line.
        var valueStart = 0
        var firstLine = 0
        var values = 0
        var lines = 0
        var packages = 0
        var errors: [BatchError] = []
    }
}
