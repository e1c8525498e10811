import MethodSCRIPT
import MethodSCRIPTBatch
import Testing

/// The fixed-width fast path and the two-thread split give exactly what the reference batch decode
/// gives: the same columns bit for bit, the same errors with the same lines, offsets and columns.
@Suite struct BatchFastPathTests {
    /// Every column, the counts and the errors of a batch, comparable (values by bit pattern).
    struct Snapshot: Equatable {
        let lines: [Int32]
        let variables: [UInt16]
        let values: [UInt64]
        let statuses: [UInt8]
        let ranges: [UInt8]
        let noises: [UInt8]
        let flags: [UInt8]
        let lineCount: Int
        let packageCount: Int
        let errors: [BatchError]

        init(_ batch: ColumnarBatch) {
            lines = Array(batch.lines)
            variables = Array(batch.variables)
            values = batch.values.map(\.bitPattern)
            statuses = Array(batch.statuses)
            ranges = Array(batch.ranges)
            noises = Array(batch.noises)
            flags = Array(batch.flags)
            lineCount = batch.lineCount
            packageCount = batch.packageCount
            errors = batch.errors
        }
    }

    /// The reference (no fast path, scalar hex), the fast serial decode and the split decode of `bytes`.
    static func decodeAllWays(
        _ bytes: [UInt8],
        splitAbove: Int = 0
    ) -> (reference: Snapshot, fast: Snapshot, split: Snapshot) {
        let batch = ColumnarBatch()
        return bytes.withUnsafeBytes { buffer in
            BatchDecoder.decodeScalarReference(buffer, into: batch)
            let reference = Snapshot(batch)
            BatchDecoder.decode(buffer, into: batch)
            let fast = Snapshot(batch)
            BatchDecoder.decodeInParallel(buffer, into: batch, minimumSplitBytes: splitAbove)
            return (reference, fast, Snapshot(batch))
        }
    }

    @Test(arguments: Recorder.fixtureNames)
    func fixturesDecodeAlikeAllWays(name: String) throws {
        let bytes = try Recorder.fixture(name)
        let result = Self.decodeAllWays(bytes)
        #expect(result.fast == result.reference)
        #expect(result.split == result.reference)
        #expect(result.reference.values.count > 0 || name == "replies_misc.txt" || name == "malformed.txt")
    }

    @Test func splitKeepsLineNumbersAndOffsetsOfErrorsInTheSecondHalf() {
        let good = "Pda8000000u;ba8000001p,14,2A8\n"
        let text = String(repeating: good, count: 4) + "Pda80000G0u\n" + good + "Pba12\n" + good
        let bytes = Array(text.utf8)
        let batch = ColumnarBatch()
        bytes.withUnsafeBytes { BatchDecoder.decodeInParallel($0, into: batch, minimumSplitBytes: 0) }
        #expect(batch.lineCount == 8)
        #expect(batch.count == 12)
        #expect(batch.errors.map(\.error.line) == [5, 7])
        #expect(batch.errors.map(\.error.offset) == [4 * 30 + 8, 5 * 30 + 12 + 5])
        #expect(batch.errors.map(\.error.reason) == [.badHexDigits, .truncated])
        #expect(Array(batch.lines) == [1, 1, 2, 2, 3, 3, 4, 4, 6, 6, 8, 8])
        #expect(Self.decodeAllWays(bytes).split == Self.decodeAllWays(bytes).reference)
    }

    /// Lines of many shapes, valid and not; `mutations` random bytes are then overwritten.
    static func randomInput(lines: Int, mutations: Int, random: inout SplitMix64) -> [UInt8] {
        let prefixes = Array("afpnum kMGTPEi".utf8)
        let shapes = [
            ",10", ",14,2A8", ",2rr", ",40", ",17", ",1a,20,43", ",5F", "", "", "",
        ]
        let others = [
            "e", "M0007", "*", "C0001", "-", "L", "+", "Tsome text", "!2001", "P!4004: Line 3, Col 1", "", "Pxx",
        ]
        var out: [UInt8] = []
        for _ in 0..<lines {
            if Int.random(in: 0..<10, using: &random) == 0 {
                out += Array(others.randomElement(using: &random)!.utf8)
            } else {
                out.append(0x50)
                for variable in 0..<Int.random(in: 1...4, using: &random) {
                    if variable > 0 { out.append(0x3B) }
                    out.append(UInt8.random(in: 0x61...0x7A, using: &random))
                    out.append(UInt8.random(in: 0x61...0x7A, using: &random))
                    if Int.random(in: 0..<50, using: &random) == 0 {
                        out += Array("     nan".utf8)
                    } else {
                        for _ in 0..<7 { out.append(HexPropertyTests.hexDigits.randomElement(using: &random)!) }
                        out.append(prefixes.randomElement(using: &random)!)
                    }
                    var shape = Array(shapes.randomElement(using: &random)!.utf8)
                    for index in shape.indices where shape[index] == 0x72 {
                        shape[index] = HexPropertyTests.hexDigits.randomElement(using: &random)!
                    }
                    out += shape
                }
            }
            if Int.random(in: 0..<20, using: &random) == 0 { out.append(0x0D) }
            out.append(0x0A)
        }
        for _ in 0..<mutations where !out.isEmpty {
            out[Int.random(in: 0..<out.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
        }
        if Bool.random(using: &random), out.last == 0x0A { out.removeLast() }
        return out
    }

    @Test func randomInputsDecodeAlikeAllWays() {
        var random = SplitMix64(state: 0x4641_5354_5041_5448)
        var values = 0
        var errors = 0
        for round in 0..<3000 {
            let bytes = Self.randomInput(lines: 1 + round % 40, mutations: round % 4, random: &random)
            let result = Self.decodeAllWays(bytes)
            #expect(result.fast == result.reference, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            #expect(result.split == result.reference, "round \(round): \(String(decoding: bytes, as: UTF8.self))")
            if result.fast != result.reference || result.split != result.reference { return }
            values += result.reference.values.count
            errors += result.reference.errors.count
        }
        #expect(values > 50_000)
        #expect(errors > 1000)
    }

    @Test func shortOrUnsplittableBuffersDecodeSerially() {
        for text in ["", "P", "\n", "Pda8000000u", "Pda8000000u\n", "\n\n\n", "Pda8000000u\nPba8000000u"] {
            let bytes = Array(text.utf8)
            let result = Self.decodeAllWays(bytes)
            #expect(result.split == result.reference, "\(text)")
            #expect(result.fast == result.reference, "\(text)")
        }
    }
}
