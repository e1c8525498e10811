import Synchronization

/// A run's events, in order: an `AsyncSequence` over the stream the reader thread fills.
///
/// The reader thread never waits for the consumer: it must keep draining the link so that ATT
/// responses and the ModemOut flow control keep flowing. Packages queue up to `EventBacklog.limit`
/// ahead of the consumer; past that a package is not queued but counted (`overflowed`), the stream
/// reports the count as `.overflowed(packages:)` before `.ended`, and its index is skipped, so the gap
/// shows where. Structural events (loops, scans, the end) are always queued.
public struct PicoEventStream: AsyncSequence, Sendable {
    public typealias Element = PicoEvent
    public typealias Failure = any Error

    let stream: AsyncThrowingStream<PicoEvent, any Error>
    let backlog: EventBacklog?

    init(stream: AsyncThrowingStream<PicoEvent, any Error>, backlog: EventBacklog?) {
        self.stream = stream
        self.backlog = backlog
    }

    /// Packages not queued because the consumer was `EventBacklog.limit` behind (0 for a stream
    /// relayed from another).
    public var overflowed: Int { backlog?.overflowed ?? 0 }

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

/// Packages handed to a run's stream and not yet taken by its consumer, bounded: the reader thread asks
/// `admit()` before it queues one and drops (and counts) it when the consumer is `limit` behind. It
/// never waits.
final class EventBacklog: Sendable {
    /// Most packages queued ahead of the consumer (about 13 MB of typical packages): a minute of a
    /// Pico's fastest loop, so only a consumer that stalls for long loses any.
    static let defaultLimit = 65_536

    let limit: Int
    private let state = Mutex((queued: 0, highest: 0, overflowed: 0))

    init(limit: Int = EventBacklog.defaultLimit) { self.limit = max(1, limit) }

    /// The most packages that were queued at once.
    var peak: Int { state.withLock { $0.highest } }

    /// Packages dropped because the consumer was `limit` behind.
    var overflowed: Int { state.withLock { $0.overflowed } }

    /// Reader thread: whether one more package may be queued (it is then counted as queued); false
    /// counts it as overflowed.
    func admit() -> Bool {
        state.withLock { state in
            guard state.queued < limit else {
                state.overflowed += 1
                return false
            }
            state.queued += 1
            state.highest = max(state.highest, state.queued)
            return true
        }
    }

    /// Consumer: took a package.
    func removed() { state.withLock { $0.queued -= 1 } }
}
