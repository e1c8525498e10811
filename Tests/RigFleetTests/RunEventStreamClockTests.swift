import Coordination
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RigJournal
import Synchronization
import Testing

@testable import RigStatus

/// An event stream keeps its connection alive on the status server's clock, not a clock of its own.
@Suite struct RunEventStreamClockTests {
    /// A response body that keeps what is written.
    struct KeptBody: ResponseBodyWriter {
        let written: LockedTexts

        mutating func write(_ buffer: ByteBuffer) async throws { written.add(String(buffer: buffer)) }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    final class LockedTexts: Sendable {
        private let texts = Mutex<[String]>([])
        func add(_ text: String) { texts.withLock { $0.append(text) } }
        var all: [String] { texts.withLock { $0 } }
    }

    @Test func aSilentStreamSendsItsKeepAliveWhenTheClockSaysSo() async throws {
        let path = FleetFixtures.path()
        defer { FleetFixtures.remove(path) }
        let journal = try Journal.open(path: path, rig: "lab-1")
        let clock = ManualClock()
        let stream = RunEventStream(
            journal: journal,
            feeds: RunFeeds(journal: journal, clock: clock),
            logger: Logger(label: "test"),
            clock: clock
        )
        let written = LockedTexts()
        var writer: any ResponseBodyWriter = KeptBody(written: written)
        var lastWrite = clock.now
        try await stream.keepAlive(after: &lastWrite, into: &writer)
        clock.advance(by: RunEventStream.keepAlive - .milliseconds(1))
        try await stream.keepAlive(after: &lastWrite, into: &writer)
        #expect(written.all.isEmpty)
        clock.advance(by: .milliseconds(1))
        try await stream.keepAlive(after: &lastWrite, into: &writer)
        #expect(written.all == [": keep-alive\n\n"])
        #expect(lastWrite == clock.now, "the next keep-alive counts from this one")
    }
}
