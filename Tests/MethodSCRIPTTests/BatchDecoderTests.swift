import MethodSCRIPT
import MethodSCRIPTBatch
import Testing

/// The batch decoder gives the streaming parser's samples and P-line errors, in columns.
@Suite struct BatchDecoderTests {
    @Test(arguments: Recorder.fixtureNames)
    func batchMatchesStreaming(name: String) throws {
        let bytes = try Recorder.fixture(name)
        let events = Recorder.events(bytes)
        let samples = events.compactMap { item -> (Sample, Int)? in
            if case .sample(let record, _, _) = item.event { return (record.sample, item.location.line) }
            return nil
        }
        let batch = BatchDecoder.decode(bytes)
        let scalar = ColumnarBatch()
        bytes.withUnsafeBytes { BatchDecoder.decodeScalarReference($0, into: scalar) }
        #expect(batch.count == samples.count)
        #expect(scalar.count == samples.count)
        for index in 0..<min(batch.count, samples.count) {
            #expect(batch.sample(at: index).sameDecoding(as: samples[index].0))
            #expect(scalar.sample(at: index).sameDecoding(as: samples[index].0))
            #expect(Int(batch.lines[index]) == samples[index].1)
        }
        let streamedErrors = events.compactMap { item -> ParseError? in
            guard case .malformed(let error, let raw) = item.event, raw.first == 0x50 else {
                return nil
            }
            return error
        }
        #expect(batch.errors.map(\.error) == streamedErrors)
        #expect(scalar.errors == batch.errors)
    }

    @Test func errorsKeepTheRawLineRange() {
        let bytes = Array("Pda8000000u\nPda80000G0u;ba8000000u\nPba8000001u".utf8)
        let batch = BatchDecoder.decode(bytes)
        #expect(batch.count == 2)
        #expect(batch.lineCount == 3)
        #expect(batch.packageCount == 2)
        #expect(batch.errors.count == 1)
        let error = batch.errors[0]
        #expect(error.error.line == 2)
        #expect(error.error.column == 8)
        #expect(error.error.offset == 20)
        #expect(Array(bytes[error.lineRange]) == Array("Pda80000G0u;ba8000000u".utf8))
        #expect(batch.lines[1] == 3)
        #expect(batch.values[1] == 1e-6)
    }

    @Test func aFieldCutByANewlineNearTheEndDoesNotSwallowTheNextLine() {
        for text in ["Pda -\nC\u{0} ", "eM0\np00\nPda7F85*\n\n", "eM000001\nPda7-\n*\n\n", "Pda80\nPba8000000u\n"] {
            let bytes = Array(text.utf8)
            let batch = BatchDecoder.decode(bytes)
            let events = Recorder.events(bytes)
            let streamedErrors = events.compactMap { item -> ParseError? in
                guard case .malformed(let error, let raw) = item.event, raw.first == 0x50 else { return nil }
                return error
            }
            #expect(batch.errors.map(\.error) == streamedErrors, "\(text)")
            #expect(
                batch.lineCount == bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count
                    - (bytes.last == 0x0A ? 1 : 0),
                "\(text)"
            )
        }
    }

    @Test func crlfLinesDecodeLikeTheStreamingParser() {
        let bytes = Array("e\r\nPda8000000u;ba8000001p,10\r\nPba8000002u\r".utf8)
        let batch = BatchDecoder.decode(bytes)
        #expect(batch.errors.isEmpty)
        #expect(Array(batch.values) == [0, 1e-12, 2e-6])
        #expect(Array(batch.lines) == [2, 2, 3])
    }

    @Test func reusedBatchKeepsCapacity() throws {
        let bytes = try Recorder.fixture("lsv_10k.txt")
        let batch = ColumnarBatch()
        bytes.withUnsafeBytes { BatchDecoder.decode($0, into: batch) }
        let first = Array(batch.values)
        bytes.withUnsafeBytes { BatchDecoder.decode($0, into: batch) }
        #expect(Array(batch.values) == first)
        #expect(batch.count == 42)
    }
}
