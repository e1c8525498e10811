import Foundation

/// A run's events, in order: an `AsyncSequence` over the stream the reader thread fills, with
/// backpressure. When the consumer falls `EventBacklog.limit` packages behind, the reader thread waits
/// until it has caught up by half, so memory stays bounded however fast the device sends (the link's
/// own buffers hold the rest). Stopping the iteration early (or dropping the sequence) releases the
/// reader.
public struct PicoEventStream: AsyncSequence, Sendable {
    public typealias Element = PicoEvent
    public typealias Failure = any Error

    let stream: AsyncThrowingStream<PicoEvent, any Error>
    let backlog: EventBacklog?

    init(stream: AsyncThrowingStream<PicoEvent, any Error>, backlog: EventBacklog?) {
        self.stream = stream
        self.backlog = backlog
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<PicoEvent, any Error>.AsyncIterator
        let backlog: EventBacklog?

        public mutating func next() async throws -> PicoEvent? {
            let event = try await base.next()
            if case .package = event { backlog?.removed() }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), backlog: backlog)
    }
}

/// Packages handed to a run's stream and not yet taken by its consumer.
final class EventBacklog: @unchecked Sendable {
    /// Most packages queued before the reader thread waits.
    static let limit = 1024

    /// Guards `count` and `closed` (that is what makes the unchecked conformance sound).
    private let condition = NSCondition()
    private var count = 0
    private var closed = false
    private var highest = 0

    /// The most packages that were queued at once.
    var peak: Int {
        condition.lock()
        defer { condition.unlock() }
        return highest
    }

    /// Reader thread, after yielding a package: waits while the consumer is `limit` behind.
    func added() {
        condition.lock()
        defer { condition.unlock() }
        count += 1
        highest = max(highest, count)
        guard count >= Self.limit else { return }
        while count > Self.limit / 2 && !closed { condition.wait() }
    }

    /// Consumer: took a package.
    func removed() {
        condition.lock()
        count -= 1
        if count <= Self.limit / 2 { condition.broadcast() }
        condition.unlock()
    }

    /// The stream ended or its consumer went away: never wait again.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
