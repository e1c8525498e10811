import CParserBaseline
import MethodSCRIPT
import MethodSCRIPTBatch

/// The C yardstick of `Bench decode`: `baseline_parse_lines` parses the input's lines the way
/// PalmSens' C example does, on lines already split into NUL-terminated strings (the example reads
/// one line at a time into such a string). Splitting is done once, outside the timing.
extension DecodeBench {
    struct SplitLines {
        /// Every line with its "\n", then a NUL.
        let text: [CChar]
        /// Where each line starts in `text`.
        let offsets: [UInt32]
    }

    static func splitLines(_ buffer: UnsafeRawBufferPointer) -> SplitLines {
        var text: [CChar] = []
        text.reserveCapacity(buffer.count + lineCount)
        var offsets: [UInt32] = []
        offsets.reserveCapacity(lineCount)
        var atLineStart = true
        for byte in buffer {
            if atLineStart { offsets.append(UInt32(text.count)) }
            text.append(CChar(bitPattern: byte))
            atLineStart = byte == 0x0A
            if atLineStart { text.append(0) }
        }
        precondition(atLineStart, "the bench input ends with a newline")
        return SplitLines(text: text, offsets: offsets)
    }

    /// Parses all lines with the C baseline; returns the values found and their sum.
    @inline(never)
    static func baseline(_ lines: SplitLines) -> (values: Int, sum: Double) {
        let totals = lines.text.withUnsafeBufferPointer { text in
            lines.offsets.withUnsafeBufferPointer { offsets in
                baseline_parse_lines(text.baseAddress, offsets.baseAddress, offsets.count)
            }
        }
        return (Int(totals.values), totals.sum)
    }

    /// Whether the baseline's sum is the batch's, to rounding: both scale the same integers by the
    /// same factors, summed in the same order.
    static func agrees(_ sum: Double, with batch: ColumnarBatch) -> Bool {
        let batchSum = batch.values.reduce(0, +)
        return abs(sum - batchSum) <= 1e-9 * max(1, abs(batchSum))
    }
}
