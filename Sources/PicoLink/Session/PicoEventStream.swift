import Synchronization

/// A run's events, in order: an `AsyncSequence` over the stream the reader thread fills.
///
/// The reader thread never waits for the consumer: it must keep draining the link so that ATT
/// responses and the ModemOut flow control keep flowing. Packages queue up to `EventBacklog.limit`
/// ahead of the consumer; past that a package is not queued but counted (`overflowed`), the stream
/// reports the count as `.overflowed(packages:)` before `.ended`, and its index is skipped, so the gap
/// shows where. Structural events (loops, scans, the end) are always queued.
public struct PicoEventStream: AsyncSequence, Sendable {
    /// Each element is one event of the run.
    public typealias Element = PicoEvent
    /// What iteration throws: `PicoSessionError.connectionLost` when the link goes away before the run ends.
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

    /// Iterates the events, telling the backlog of every package taken off it.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<PicoEvent, any Error>.AsyncIterator
        let backlog: EventBacklog?

        /// The next event, or nil after the last (`.ended`). Throws `PicoSessionError.connectionLost` once the
        /// packages received before the link went away have been returned.
        public mutating func next() async throws -> PicoEvent? {
            let event = try await base.next()
            if case .package = event { backlog?.removed() }
            return event
        }
    }

    /// An iterator over the run's events; the stream has one consumer.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), backlog: backlog)
    }
}

/// Packages handed to a run's stream and not yet taken by its consumer, bounded: the reader thread asks
/// `admit()` before it queues one and drops (and counts) it when the consumer is `limit` behind. It
/// never waits, and takes no lock: one producer (the link's reader) and one consumer, on atomics.
final class EventBacklog: Sendable {
    /// Most packages queued ahead of the consumer, unless the run says otherwise.
    static let defaultLimit = PicoSession.defaultBacklogLimit

    let limit: Int
    /// Queued and not yet taken: the reader adds, the consumer subtracts.
    private let queued = Atomic<Int>(0)
    /// Written by the reader only.
    private let highest = Atomic<Int>(0)
    /// Written by the reader only.
    private let dropped = Atomic<Int>(0)

    init(limit: Int = EventBacklog.defaultLimit) { self.limit = max(1, limit) }

    /// The most packages that were queued at once.
    var peak: Int { highest.load(ordering: .relaxed) }

    /// Packages dropped because the consumer was `limit` behind.
    var overflowed: Int { dropped.load(ordering: .relaxed) }

    /// Reader thread, the only producer: whether one more package may be queued (it is then counted as
    /// queued); false counts it as overflowed. The count it reads can only be stale high (the consumer
    /// only takes away), so the bound holds without a lock.
    func admit() -> Bool {
        guard queued.load(ordering: .acquiring) < limit else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        let now = queued.add(1, ordering: .acquiringAndReleasing).newValue
        if now > highest.load(ordering: .relaxed) { highest.store(now, ordering: .relaxed) }
        return true
    }

    /// Consumer: took a package.
    func removed() { queued.subtract(1, ordering: .acquiringAndReleasing) }
}
