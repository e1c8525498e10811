public import BLEHost
import Synchronization

/// An `ATTTransport` driven by the test itself, in the spirit of SwiftNIO's `EmbeddedChannel`: what the
/// engine sends is kept in `outbound`, in order, inside `send`; what the test `deliver`s reaches the
/// engine at once, on the test's own thread, as it would from a reader thread. With a
/// `ManualClock`, an engine test has no thread, no socket and no sleep: it waits only for a
/// state it can name (a request queued, a PDU sent), and a check that something did not happen is
/// made in a state where it could have.
///
/// One caller at a time may `deliver`, as one reader thread would.
public final class EmbeddedATTTransport: ATTTransport {
    /// The largest PDU either way.
    public let maximumPDULength: Int
    private let state = Mutex(State())

    private struct State {
        var outbound: [[UInt8]] = []
        var receive: (@Sendable (UnsafeRawBufferPointer) -> Void)?
        var closed: (@Sendable (TransportError) -> Void)?
        var ended: TransportError?
    }

    /// A transport whose PDUs are at most `maximumPDULength` bytes.
    public init(maximumPDULength: Int = 1024) {
        self.maximumPDULength = maximumPDULength
    }

    /// Everything the engine sent so far, oldest first.
    public var outbound: [[UInt8]] { state.withLock { $0.outbound } }

    /// Keeps `pdu` in `outbound`; `.closed` once the link has ended.
    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        guard pdu.count <= maximumPDULength else { throw .pduTooLarge(length: pdu.count, limit: maximumPDULength) }
        let ended = state.withLock { state -> TransportError? in
            if let ended = state.ended { return ended }
            state.outbound.append(Array(pdu))
            return nil
        }
        if let ended { throw ended }
    }

    /// Remembers the engine's handlers; `deliver` calls them.
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try state.withLock { (state) throws(TransportError) in
            guard state.receive == nil else { throw .framing("transport already started") }
            state.receive = receive
            state.closed = closed
        }
    }

    /// Hands `pdu` to the engine now, on this thread, and returns once the engine has handled it
    /// (including whatever it sent in answer). False before `start` or after the end.
    @discardableResult
    public func deliver(_ pdu: [UInt8]) -> Bool {
        guard let receive = state.withLock({ $0.ended == nil ? $0.receive : nil }) else { return false }
        pdu.withUnsafeBytes { receive($0) }
        return true
    }

    /// Ends the link as a peer going away would: the engine is told `reason` at once.
    public func disconnect(_ reason: TransportError = .disconnected(reason: nil)) { end(reason) }

    /// Closes the link from the engine's side: later sends fail with `.closed`, and the engine is told.
    public func close() { end(.closed) }

    private func end(_ reason: TransportError) {
        let closed = state.withLock { state -> (@Sendable (TransportError) -> Void)? in
            guard state.ended == nil else { return nil }
            state.ended = reason
            defer {
                state.receive = nil
                state.closed = nil
            }
            return state.closed
        }
        closed?(reason)
    }
}
