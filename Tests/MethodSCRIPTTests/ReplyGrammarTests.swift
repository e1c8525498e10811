import MethodSCRIPT
import Testing

/// The reply grammar: loops, scans, text, version, errors, aborts, malformed lines and resync.
@Suite struct ReplyGrammarTests {
    func events(_ text: String, maximumLineLength: Int = 1024) -> [RecordedEvent] {
        Recorder.events(Array(text.utf8), maximumLineLength: maximumLineLength).map(\.event)
    }

    @Test func scansNestInsideAMeasurementLoop() throws {
        let recorded = Recorder.events(try Recorder.fixture("cv_nscans.txt")).map(\.event)
        let structure = recorded.filter { if case .sample = $0 { false } else { true } }
        #expect(
            structure == [
                .executeAccepted, .measurementLoopStart(0), .scanStart(0), .scanEnd, .scanStart(1), .scanEnd,
                .measurementLoopEnd, .scriptEnd,
            ]
        )
    }

    @Test func serialNumberReplyIsItsOwnEvent() {
        let recorded = Recorder.events(Array("iES4SN21000042\n".utf8)).map(\.event)
        #expect(recorded == [.serialNumber("ES4SN21000042")])
    }

    @Test func miscellaneousReplies() throws {
        let recorded = Recorder.events(try Recorder.fixture("replies_misc.txt")).map(\.event)
        #expect(recorded[0] == .version("tespico1500#Mar 12 2026 14:28:01", isLast: false))
        #expect(recorded[1] == .version("R*", isLast: true))
        #expect(recorded[2] == .executeAccepted)
        #expect(recorded[3] == .text("Hello world!"))
        #expect(recorded.contains(.deviceError(code: 0x4004, echo: "", line: 3, column: 16)))
        #expect(recorded.contains(.deviceError(code: 0x0003, echo: "F", line: nil, column: nil)))
        #expect(recorded.contains(.deviceError(code: 0x4018, echo: "e", line: nil, column: nil)))
        #expect(recorded.contains(.abortReply(0x0006)))
        #expect(recorded.contains(.abortReply(nil)))
        #expect(!recorded.contains { if case .malformed = $0 { true } else { false } })
        #expect(DeviceErrorCode(rawValue: 0x4004).message == "An unexpected character was encountered")
    }

    @Test func malformedLinesAreLocatedKeptRawAndParsingResumes() throws {
        let located = Recorder.events(try Recorder.fixture("malformed.txt"))
        let errors = located.compactMap { item -> (ParseError, [UInt8])? in
            if case .malformed(let error, let raw) = item.event { return (error, raw) }
            return nil
        }
        try #require(errors.map(\.0.line) == [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20])
        #expect(errors[0].0.reason == .badHexDigits)
        #expect(errors[0].0.column == 7)
        #expect(String(decoding: errors[0].1, as: UTF8.self) == "Pda7F85G3Fu;ba48D503Dp,10,288")
        #expect(errors[1].0.reason == .badPrefix(0x78))
        #expect(errors[8].0.reason == .unknownLine(first: 0x58))
        #expect(errors[9].0.reason == .unbalancedEnd(0x2D))
        #expect(errors[10].0.reason == .badLoopStart)
        #expect(errors[11].0.reason == .unbalancedEnd(0x2A))
        #expect(errors[12].0.reason == .unclosedScope)
        // The byte offset is the stream offset of the offending byte.
        let bytes = try Recorder.fixture("malformed.txt")
        #expect(bytes[errors[0].0.offset] == UInt8(ascii: "G"))
        let samples = located.filter { if case .sample = $0.event { true } else { false } }
        #expect(samples.count == 6)
        #expect(samples.last?.location.line == 21)
        #expect(located.map(\.event).contains(.scriptEnd))
    }

    @Test func scriptEndWithOpenLoopIsReported() {
        let recorded = events("e\nL\nM0000\n\n")
        #expect(recorded.contains(.scriptEnd))
        #expect(
            recorded.contains {
                if case .malformed(let error, _) = $0 { error.reason == .unclosedScope } else { false }
            }
        )
    }

    @Test func overlongLineIsAnErrorAndMemoryStaysBounded() {
        let long = "P" + String(repeating: "a", count: 500)
        let recorded = events("e\n\(long)\nPda8000000u\n", maximumLineLength: 64)
        guard case .malformed(let error, let raw) = recorded[1] else {
            Issue.record("expected a malformed line, got \(recorded)")
            return
        }
        #expect(error.reason == .lineTooLong(limit: 64))
        #expect(error.line == 2)
        #expect(error.offset == 2)
        #expect(raw.count == 64)
        #expect(recorded[2] == .sample(SampleRecord(Sample(variable: .appliedPotential, value: 0)), index: 0, count: 1))
    }

    @Test func nestingDepthIsBounded() {
        let recorded = events(String(repeating: "L\n", count: 40))
        #expect(
            recorded.filter {
                if case .malformed(let error, _) = $0 { error.reason == .nestingTooDeep } else { false }
            }.count == 8
        )
    }

    /// Only `t` and a known device is a version reply; another line starting with `t` is malformed
    /// and does not swallow the lines after it.
    @Test func aLineStartingWithTIsAVersionReplyOnlyWithADevice() {
        for line in ["t", "tea time", "tespic", "tes4_xx1500"] {
            let recorded = events(line + "\nL\n")
            guard case .malformed(let error, _) = recorded.first else {
                Issue.record("\(line): \(recorded)")
                continue
            }
            #expect(error.reason == .notAVersion, "\(line)")
            #expect(recorded.count == 2 && recorded[1] == .loopStart, "\(line): \(recorded)")
        }
        for line in ["tespico1602#Oct 10 2022", "tes4_lr1500#Mar 12 2026*", "tnexus1", "tespbl0100"] {
            guard case .version = events(line + "\n").first else {
                Issue.record("\(line) is a version reply")
                continue
            }
        }
    }

    @Test func unterminatedVersionReplyEndsAfterAFewLines() {
        let recorded = events("tespico\na\nb\nc\nd\ne\nM0000\n*\n")
        #expect(
            recorded.prefix(4) == [
                .version("tespico", isLast: false), .version("a", isLast: false), .version("b", isLast: false),
                .version("c", isLast: false),
            ]
        )
        guard case .malformed(let error, let raw) = recorded[4] else {
            Issue.record("expected the unterminated version reply to be reported: \(recorded)")
            return
        }
        #expect(error.reason == .versionNotTerminated)
        #expect(raw == Array("d".utf8))
        #expect(Array(recorded.suffix(3)) == [.executeAccepted, .measurementLoopStart(0), .measurementLoopEnd])
    }

    @Test func crlfAndUnterminatedLastLine() {
        #expect(events("e\r\nM0000\r\n*") == [.executeAccepted, .measurementLoopStart(0), .measurementLoopEnd])
    }
}
