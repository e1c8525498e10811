import Testing

@testable import MethodSCRIPT
@testable import MethodSCRIPTBatch

/// The census the two-thread decode places its second part by: its newline count is exact, its value
/// bound never below what the batch decode writes, and equal to it for valid `P` lines.
@Suite struct PackageCensusTests {
    static func census(_ bytes: [UInt8]) -> PackageCensus {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return PackageCensus() }
            return PackageCensus.count(base, base + buffer.count)
        }
    }

    @Test func countsEveryNewlineAndBoundsTheValuesOfAnyInput() {
        var random = SplitMix64(state: 0x4345_4E53_5553)
        let batch = ColumnarBatch()
        for round in 0..<2000 {
            let bytes = BatchFastPathTests.randomInput(lines: 1 + round % 60, mutations: round % 3, random: &random)
            let census = Self.census(bytes)
            bytes.withUnsafeBytes { BatchDecoder.decode($0, into: batch) }
            #expect(census.newlines == bytes.count { $0 == 0x0A }, "round \(round)")
            #expect(census.valueBound >= batch.count, "round \(round)")
        }
    }

    @Test func isExactForValidPackagesAtEveryLength() {
        let lines = ["Pda8000000u;ba7FF0000p,14,2A8", "Pdc81A2B3Cm;cc8000001m,10,288;cd7000000u,10,288", "Pja8000010i"]
        var text = ""
        var index = 0
        let batch = ColumnarBatch()
        // Lengths across several 16-byte steps and the tail, each cut after a newline.
        while text.utf8.count < 700 {
            text += lines[index % lines.count] + (index % 5 == 4 ? "\r\n" : "\n")
            index += 1
            let bytes = Array(text.utf8)
            let census = Self.census(bytes)
            bytes.withUnsafeBytes { BatchDecoder.decode($0, into: batch) }
            #expect(batch.errors.isEmpty)
            #expect(census.valueBound == batch.count, "\(index) lines")
            #expect(census.newlines == index)
        }
    }

    /// Device transcripts (`e`, loop and scan lines, the empty line, `P` lines) need no move in the
    /// two-thread decode: the census of any of their line-aligned prefixes is exact.
    @Test(arguments: ["lsv_10k.txt", "eis_10k.txt", "cv_nscans.txt"])
    func isExactForDeviceTranscripts(name: String) throws {
        let bytes = try Recorder.fixture(name)
        let batch = ColumnarBatch()
        var checked = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            let prefix = Array(bytes[...index])
            prefix.withUnsafeBytes { BatchDecoder.decode($0, into: batch) }
            #expect(batch.errors.isEmpty)
            #expect(Self.census(prefix).valueBound == batch.count, "\(name) up to byte \(index)")
            checked += 1
        }
        #expect(checked > 10)
    }

    @Test func looksAtTheFirstByte() {
        #expect(Self.census(Array("P".utf8)) == PackageCensus(newlines: 0, valueBound: 1))
        #expect(Self.census(Array(";".utf8)) == PackageCensus(newlines: 0, valueBound: 1))
        #expect(Self.census(Array("\nP".utf8)) == PackageCensus(newlines: 1, valueBound: 1))
        #expect(Self.census(Array("xP;\n".utf8)) == PackageCensus(newlines: 1, valueBound: 1))
        #expect(Self.census([]) == PackageCensus())
    }
}
