import MethodSCRIPT
import Testing

/// `LineFramer` against a reference that splits the whole input at once: random bytes rich in
/// newlines, carriage returns and the bytes a word-wise search can confuse with them, random line
/// limits, and chunk sizes on both sides of the small-chunk path.
@Suite struct LineFramerTests {
    struct Line: Equatable, CustomStringConvertible {
        let bytes: [UInt8]
        let number: Int
        let offset: Int
        let isTooLong: Bool
        var description: String { "#\(number)@\(offset)\(isTooLong ? " too long" : ""): \(bytes)" }
    }

    /// The lines of `input`, split at once: what the framer must hand out whatever the chunking.
    static func reference(_ input: [UInt8], limit: Int) -> [Line] {
        var lines: [Line] = []
        var start = 0
        func add(_ end: Int) {
            let length = end - start
            let tooLong = length > limit
            var bytes = Array(input[start..<start + min(length, limit)])
            if !tooLong, bytes.last == 0x0D { bytes.removeLast() }
            lines.append(Line(bytes: bytes, number: lines.count + 1, offset: start, isTooLong: tooLong))
        }
        for (index, byte) in input.enumerated() where byte == 0x0A {
            add(index)
            start = index + 1
        }
        if start < input.count { add(input.count) }
        return lines
    }

    /// Feeds `input` in chunks of the given sizes (repeated), checking the counters after each chunk
    /// and the byte after every line that is not too long.
    static func framed(_ input: [UInt8], limit: Int, chunks: [Int]) -> [Line] {
        let framer = LineFramer(maximumLineLength: limit)
        var lines: [Line] = []
        let record: (FramedLine) -> Void = { line in
            if !line.isTooLong, let base = line.bytes.baseAddress {
                let after = base.load(fromByteOffset: line.bytes.count, as: UInt8.self)
                #expect(after == 0x0A || after == 0x0D, "byte after line \(line.number)")
            }
            let bytes = Array(line.bytes)
            lines.append(Line(bytes: bytes, number: line.number, offset: line.offset, isTooLong: line.isTooLong))
        }
        input.withUnsafeBytes { all in
            var start = 0
            var index = 0
            while start < all.count {
                let end = min(all.count, start + chunks[index % chunks.count])
                framer.feed(UnsafeRawBufferPointer(rebasing: all[start..<end]), record)
                let since = end - ((all[..<end].lastIndex(of: 0x0A)).map { $0 + 1 } ?? 0)
                #expect(framer.byteCount == end)
                #expect(framer.pendingByteCount == min(since, limit))
                start = end
                index += 1
            }
        }
        framer.finish(record)
        return lines
    }

    static func randomInput(_ random: inout SplitMix64, count: Int) -> [UInt8] {
        let alphabet: [UInt8] = [0x0A, 0x0A, 0x0A, 0x0D, 0x0B, 0x0B, 0x01, 0x00, 0x50, 0x61, 0x3B, 0x8A, 0xFF]
        return (0..<count).map { _ in
            random.next() % 3 == 0
                ? alphabet[Int(random.next() % UInt64(alphabet.count))] : UInt8(0x30 + random.next() % 40)
        }
    }

    @Test func randomStreamsFrameAsTheReferenceAtAnyChunking() {
        var random = SplitMix64(state: 0x1F2E_3D4C)
        for round in 0..<1500 {
            let input = Self.randomInput(&random, count: Int(random.next() % 300))
            let limit = 1 + Int(random.next() % 48)
            let chunks = (0..<4).map { _ in
                random.next() % 4 == 0 ? 33 + Int(random.next() % 250) : 1 + Int(random.next() % 32)
            }
            let expected = Self.reference(input, limit: limit)
            let lines = Self.framed(input, limit: limit, chunks: chunks)
            #expect(lines == expected, "round \(round), limit \(limit), chunks \(chunks)")
            if lines != expected { return }
        }
    }

    @Test func everyChunkSizeUpToTheSmallPathAndPastIt() {
        var random = SplitMix64(state: 77)
        let input = Self.randomInput(&random, count: 700) + Array("Pda7F85F3Fu;ba48D503Dp,10,288\r\n".utf8)
        for limit in [1, 7, 8, 31, 32, 33, 100] {
            let expected = Self.reference(input, limit: limit)
            for size in 1...40 {
                #expect(Self.framed(input, limit: limit, chunks: [size]) == expected, "limit \(limit), chunk \(size)")
            }
        }
    }

    @Test func aNewlineRightAfterAVerticalTabOrBeforeOneIsFoundExactly() {
        // 0x0B right after a newline is what a word-wise zero test can mark falsely.
        let input: [UInt8] = [0x41, 0x0A, 0x0B, 0x0B, 0x0A, 0x0B, 0x42, 0x0A, 0x0A, 0x0B, 0x0B, 0x43]
        for size in 1...12 {
            #expect(Self.framed(input, limit: 16, chunks: [size]) == Self.reference(input, limit: 16))
        }
        #expect(
            Self.reference(input, limit: 16).map(\.bytes) == [
                [0x41], [0x0B, 0x0B], [0x0B, 0x42], [], [0x0B, 0x0B, 0x43],
            ]
        )
    }
}
