public import BLEHost
import Synchronization

/// A raw ATT peer for tests: starts a transport end, records every PDU it receives, and lets a test
/// wait for them and answer by hand with arbitrary (even malformed) bytes.
public final class RecordingPeer: Sendable {
    public let transport: SocketPairATTTransport
    private let state = Mutex(State())

    private struct State {
        var received: [[UInt8]] = []
        var closed: TransportError?
    }

    public init(_ transport: SocketPairATTTransport) throws(TransportError) {
        self.transport = transport
        try transport.start(
            receive: { [self] pdu in
                state.withLock { $0.received.append(Array(pdu)) }
            },
            closed: { [self] reason in
                state.withLock { $0.closed = reason }
            }
        )
    }

    /// Every PDU received so far.
    public var received: [[UInt8]] { state.withLock { $0.received } }

    /// Why the peer's end stopped, if it has.
    public var closeReason: TransportError? { state.withLock { $0.closed } }

    /// Waits until at least `count` PDUs have arrived, the link ended, or `timeout` passed, and returns
    /// all received so far, padded with empty PDUs up to `count`: a test then sees what is missing as a
    /// failed expectation instead of hanging or trapping on an index. The timeout is generous because
    /// it only matters when something is wrong (and a loaded machine can be slow).
    public func waitForPDUs(_ count: Int, timeout: Duration = .seconds(30)) async -> [[UInt8]] {
        _ = await eventually(timeout, every: .milliseconds(1)) {
            state.withLock { $0.received.count >= count || $0.closed != nil }
        }
        let received = self.received
        return received + Array(repeating: [], count: max(0, count - received.count))
    }

    /// Sends raw bytes as one PDU.
    public func send(_ bytes: [UInt8]) throws(TransportError) { try transport.send(bytes) }
}
