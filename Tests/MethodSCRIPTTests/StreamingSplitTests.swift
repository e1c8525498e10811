import MethodSCRIPT
import Testing

/// Every fixture gives the same events fed whole, byte by byte, at every split point and in
/// BLE-sized chunks.
@Suite struct StreamingSplitTests {
    @Test(arguments: Recorder.fixtureNames)
    func identicalEventsForEveryChunking(name: String) throws {
        let bytes = try Recorder.fixture(name)
        let whole = Recorder.events(bytes)
        #expect(!whole.isEmpty)
        #expect(Recorder.events(bytes, chunks: [1]) == whole)
        for size in [2, 3, 7, 20, 244] { #expect(Recorder.events(bytes, chunks: [size]) == whole) }
        for split in 0...bytes.count {
            let events = Recorder.events(bytes, chunks: [max(split, 1), bytes.count])
            #expect(events == whole, "split at \(split)")
            if events != whole { break }
        }
    }

    @Test func lsvTranscriptHasTwentyOnePointsAndNoError() throws {
        let events = Recorder.events(try Recorder.fixture("lsv_10k.txt")).map(\.event)
        let samples = events.compactMap { event -> Sample? in
            if case .sample(let record, _, _) = event { return record.sample }
            return nil
        }
        #expect(samples.count == 42)
        #expect(events.first == .executeAccepted)
        #expect(events[1] == .measurementLoopStart(0))
        #expect(events.suffix(2) == [.measurementLoopEnd, .scriptEnd])
        #expect(abs(samples[0].value - -0.499905) < 1e-12)
        #expect(abs(samples[41].value - 0.00005) < 1e-15)
        #expect(samples.filter { $0.status == .underload }.count == 5)
    }

    @Test func joinedExecuteAndLoopStartIsAccepted() throws {
        let events = Recorder.events(try Recorder.fixture("eis_10k.txt"))
        #expect(events[0] == LocatedEvent(event: .executeAccepted, location: LineLocation(line: 1, offset: 0)))
        #expect(events[1] == LocatedEvent(event: .measurementLoopStart(0), location: LineLocation(line: 1, offset: 0)))
        #expect(events.filter { if case .sample = $0.event { true } else { false } }.count == 51 * 3)
        #expect(!events.contains { if case .malformed = $0.event { true } else { false } })
    }
}
