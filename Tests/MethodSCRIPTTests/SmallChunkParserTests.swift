import MethodSCRIPT
import Testing

/// `ReplyParser`'s path for notification-sized chunks (8 to 32 bytes: only the chunk's last newline is
/// looked up, and `P` lines are found by the decoder) against one whole feed of the same bytes, which
/// takes the framer's general path: every chunk size around the small path, CRLF line ends, line
/// limits that small chunks reach, chunk sizes that change from chunk to chunk, and the bytes a
/// word-wise newline test can confuse with a newline.
@Suite struct SmallChunkParserTests {
    /// Every fixture, one after another.
    static func allFixtures() throws -> [UInt8] {
        try Recorder.fixtureNames.flatMap { try Recorder.fixture($0) }
    }

    static func crlf(_ bytes: [UInt8]) -> [UInt8] {
        bytes.flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] }
    }

    @Test(arguments: Recorder.fixtureNames)
    func everyChunkSizeGivesTheEventsOfOneWholeFeed(name: String) throws {
        let bytes = try Recorder.fixture(name)
        let whole = Recorder.events(bytes)
        for size in 1...48 {
            let events = Recorder.events(bytes, chunks: [size])
            #expect(events == whole, "chunk \(size)")
            if events != whole { return }
        }
    }

    @Test(arguments: Recorder.fixtureNames)
    func crlfLineEndsAtEveryChunkSize(name: String) throws {
        let bytes = Self.crlf(try Recorder.fixture(name))
        let whole = Recorder.events(bytes)
        #expect(whole.count == Recorder.events(try Recorder.fixture(name)).count)
        for size in 1...48 {
            let events = Recorder.events(bytes, chunks: [size])
            #expect(events == whole, "chunk \(size)")
            if events != whole { return }
        }
    }

    /// Limits below, at and above the fixtures' line lengths: a chunk that would take the pending
    /// line past the limit goes the general way, and the next chunks must pick up from there.
    @Test func lineLimitsThatSmallChunksReach() throws {
        let bytes = try Self.allFixtures()
        for limit in [9, 12, 24, 29, 30, 31, 40, 64] {
            let whole = Recorder.events(bytes, maximumLineLength: limit)
            for size in 1...40 {
                let events = Recorder.events(bytes, chunks: [size], maximumLineLength: limit)
                #expect(events == whole, "limit \(limit), chunk \(size)")
                if events != whole { return }
            }
        }
    }

    @Test func chunkSizesThatChangeFromChunkToChunk() throws {
        let bytes = try Self.allFixtures() + Self.crlf(try Recorder.fixture("lsv_10k.txt"))
        let whole = Recorder.events(bytes)
        var random = SplitMix64(state: 0x5EED_C4A1)
        for round in 0..<300 {
            let chunks = (0..<7).map { _ in
                random.next() % 5 == 0 ? 1 + Int(random.next() % 7) : 8 + Int(random.next() % 30)
            }
            let events = Recorder.events(bytes, chunks: chunks)
            #expect(events == whole, "round \(round), chunks \(chunks)")
            if events != whole { return }
        }
    }

    /// A version reply takes every line up to its `*` as text, a `P` line too; short lines (loop
    /// ends, the empty line) come several to a chunk. A bare `t` line is no version reply.
    @Test func versionRepliesAndShortLines() {
        let text =
            "tespico1602#Oct 10 2022\n"
            + "Pda8000000u\nR*\nL\nM0000\nPda8000000u\n*\n+\n\n-\n*\n\ne\nL\nL\n+\n+\n\nPda8000000u\n"
        let bytes = Array(text.utf8)
        let whole = Recorder.events(bytes)
        #expect(
            whole.map(\.event).prefix(3) == [
                .version("tespico1602#Oct 10 2022", isLast: false), .version("Pda8000000u", isLast: false),
                .version("R*", isLast: true),
            ]
        )
        for size in 1...40 { #expect(Recorder.events(bytes, chunks: [size]) == whole, "chunk \(size)") }
    }

    /// `0x0B` and `0x01` bytes next to newlines, and a newline inside a value: a zero-byte test that
    /// borrows would mark the byte after a newline as one.
    @Test func bytesNextToNewlinesAreNotTakenForThem() {
        let lines: [[UInt8]] = [
            Array("Pda7F85F3Fu;ba48D503Dp,10,288".utf8),
            [0x0B, 0x0B, 0x50, 0x0B],
            Array("Pda7F8".utf8) + [0x0A] + Array("5F3Fu".utf8),
            [0x01, 0x0B, 0x0A, 0x0B],
            Array("Pdc8000001 ;cc8000002m,10,288;cd8000003u,10,288".utf8),
        ]
        let bytes: [UInt8] = lines.flatMap { line -> [UInt8] in line + [0x0A] }
        let whole = Recorder.events(bytes)
        #expect(whole.filter { if case .sample = $0.event { true } else { false } }.count == 5)
        for size in 1...40 { #expect(Recorder.events(bytes, chunks: [size]) == whole, "chunk \(size)") }
    }
}
