import Foundation
import MethodSCRIPT

/// An owned, comparable copy of a `ReplyEvent` and its location (tests compare event streams).
enum RecordedEvent: Hashable {
    case executeAccepted
    case measurementLoopStart(UInt16)
    case measurementLoopEnd
    case scanStart(UInt16)
    case scanEnd
    case loopStart
    case loopEnd
    case sample(SampleRecord, index: Int, count: Int)
    case text(String)
    case version(String, isLast: Bool)
    case deviceError(code: UInt16, echo: String, line: Int?, column: Int?)
    case abortReply(UInt16?)
    case serialNumber(String)
    case scriptEnd
    case malformed(ParseError, raw: [UInt8])

    /// The records of an event: one per value for a package (tests compare values one by one).
    static func records(_ event: ReplyEvent) -> [RecordedEvent] {
        guard case .package(let samples) = event else { return [RecordedEvent(event)] }
        return samples.enumerated().map { .sample(SampleRecord($1), index: $0, count: samples.count) }
    }

    private init(_ event: ReplyEvent) {
        switch event {
        case .executeAccepted: self = .executeAccepted
        case .measurementLoopStart(let id): self = .measurementLoopStart(id)
        case .measurementLoopEnd: self = .measurementLoopEnd
        case .scanStart(let id): self = .scanStart(id)
        case .scanEnd: self = .scanEnd
        case .loopStart: self = .loopStart
        case .loopEnd: self = .loopEnd
        case .package: preconditionFailure("a package is recorded value by value: use records(_:)")
        case .text(let bytes): self = .text(String(decoding: bytes, as: UTF8.self))
        case .version(let bytes, let isLast): self = .version(String(decoding: bytes, as: UTF8.self), isLast: isLast)
        case .deviceError(let reply):
            self = .deviceError(
                code: reply.code.rawValue,
                echo: String(decoding: reply.echo, as: UTF8.self),
                line: reply.scriptLine,
                column: reply.scriptColumn
            )
        case .abortReply(let code): self = .abortReply(code?.rawValue)
        case .serialNumber(let bytes): self = .serialNumber(String(decoding: bytes, as: UTF8.self))
        case .scriptEnd: self = .scriptEnd
        case .malformed(let error, let raw): self = .malformed(error, raw: Array(raw))
        }
    }
}

/// A `Sample` whose NaN compares equal to NaN (bit pattern), so event streams can be compared.
struct SampleRecord: Hashable {
    let sample: Sample
    init(_ sample: Sample) { self.sample = sample }

    static func == (lhs: SampleRecord, rhs: SampleRecord) -> Bool { lhs.sample.sameDecoding(as: rhs.sample) }
    func hash(into hasher: inout Hasher) { hasher.combine(sample.variable) }
}

struct LocatedEvent: Hashable {
    let event: RecordedEvent
    let location: LineLocation
}

enum Recorder {
    /// Feeds `bytes` in chunks whose sizes come from `chunks` (repeated), then finishes.
    static func events(_ bytes: [UInt8], chunks: [Int]? = nil, maximumLineLength: Int = 1024) -> [LocatedEvent] {
        let parser = ReplyParser(maximumLineLength: maximumLineLength)
        var events: [LocatedEvent] = []
        let record: (ReplyEvent, LineLocation) -> Void = {
            let location = $1
            events.append(contentsOf: RecordedEvent.records($0).map { LocatedEvent(event: $0, location: location) })
        }
        bytes.withUnsafeBytes { all in
            guard let chunks else {
                parser.feed(all, record)
                return
            }
            var start = 0
            var index = 0
            while start < all.count {
                let size = max(1, chunks[index % chunks.count])
                let end = min(all.count, start + size)
                parser.feed(UnsafeRawBufferPointer(rebasing: all[start..<end]), record)
                start = end
                index += 1
            }
        }
        parser.finish(record)
        return events
    }

    /// The bytes of a fixture transcript, read from the package via this file's path: `Fixtures/`, or for
    /// the LSV transcript `Examples/transcripts/` (one copy in the tree, shown to users there).
    static func fixture(_ name: String, filePath: String = #filePath) throws -> [UInt8] {
        let tests = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        let url =
            name == "lsv_10k.txt"
            ? tests.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Examples/transcripts").appendingPathComponent(name)
            : tests.appendingPathComponent("Fixtures").appendingPathComponent(name)
        return Array(try Data(contentsOf: url))
    }

    static let fixtureNames = ["lsv_10k.txt", "eis_10k.txt", "cv_nscans.txt", "replies_misc.txt", "malformed.txt"]
}
