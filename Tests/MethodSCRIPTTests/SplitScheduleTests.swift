import Testing

@testable import MethodSCRIPT

/// The two-part batch decode, cut into any number of blocks, gives exactly what the serial decode
/// gives — columns, counts, errors and their locations — whichever part runs ahead and takes the
/// other's blocks: every interleaving of the two roles' steps is tried on the caller's thread.
@Suite struct SplitScheduleTests {
    static func split(_ bytes: [UInt8], blocks: Int, schedule: (() -> Bool)?) -> BatchFastPathTests.Snapshot {
        let batch = ColumnarBatch()
        bytes.withUnsafeBytes { BatchDecoder.decodeSplit($0, into: batch, blocks: blocks, schedule: schedule) }
        return BatchFastPathTests.Snapshot(batch)
    }

    static func serial(_ bytes: [UInt8]) -> BatchFastPathTests.Snapshot {
        let batch = ColumnarBatch()
        bytes.withUnsafeBytes { BatchDecoder.decode($0, into: batch) }
        return BatchFastPathTests.Snapshot(batch)
    }

    @Test func randomInputsDecodeAlikeWhicheverPartRunsAhead() {
        var random = SplitMix64(state: 0x5350_4C49_5453)
        var withErrors = 0
        for round in 0..<1200 {
            let bytes = BatchFastPathTests.randomInput(lines: 1 + round % 50, mutations: round % 4, random: &random)
            let expected = Self.serial(bytes)
            for blocks in [2, 3, 5, 9, 17] {
                // The front part alone, the back part alone, then random interleavings.
                let bias = [0.0, 1.0, 0.5, 0.2, 0.8][blocks % 5]
                var generator = SplitMix64(state: UInt64(round * 31 + blocks))
                let result = Self.split(bytes, blocks: blocks) { Double(generator.next() % 1000) / 1000 < bias }
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(result == expected, "round \(round), \(blocks) blocks: \(text)")
                if result != expected { return }
            }
            #expect(Self.split(bytes, blocks: 4, schedule: nil) == expected, "round \(round), two threads")
            if !expected.errors.isEmpty { withErrors += 1 }
        }
        #expect(withErrors > 400)
    }

    @Test func theBackPartTakesTheFrontPartsLastBlocksAndTheFrontPartTheBackParts() {
        let line = Array("Pda8000000u;ba8000001p,14,2A8\n".utf8)
        var bytes: [UInt8] = []
        for index in 0..<400 { bytes += index % 37 == 5 ? Array("Pda80000G0u\n".utf8) : line }
        let expected = Self.serial(bytes)
        #expect(expected.errors.count == 11)
        // Only the back part's thread runs until it is done: it decodes its part, then the whole front part.
        var backFirst = true
        #expect(Self.split(bytes, blocks: 10, schedule: { !backFirst }) == expected)
        backFirst = false
        // The back part counts and takes one block, then the front part's thread does all it can.
        var steps = 0
        let frontAfterTwo: () -> Bool = {
            steps += 1
            return steps > 2
        }
        #expect(Self.split(bytes, blocks: 10, schedule: frontAfterTwo) == expected)
    }

    @Test func blocksStartAtLineStartsWithoutRepeats() {
        let bytes = Array("Pda8000000u\n\nPda8000000u;ba8000001p\nT\nPdc8000000u".utf8)
        bytes.withUnsafeBytes { buffer in
            let base = buffer.baseAddress!
            for requested in 2...60 {
                let starts = BatchDecoder.blockStarts(base, base + buffer.count, requested)
                #expect(starts.first == base)
                #expect(zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 })
                #expect(starts.dropFirst().allSatisfy { ($0 - 1).load(as: UInt8.self) == 0x0A })
                #expect(starts.last! < base + buffer.count)
            }
        }
    }
}
