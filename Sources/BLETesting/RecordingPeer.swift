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
        var waiters: [(count: Int, continuation: CheckedContinuation<[[UInt8]], Never>)] = []
    }

    public init(_ transport: SocketPairATTTransport) throws(TransportError) {
        self.transport = transport
        try transport.start(
            receive: { [self] pdu in
                let ready = state.withLock { state in
                    state.received.append(Array(pdu))
                    return RecordingPeer.takeReady(&state)
                }
                for (continuation, value) in ready { continuation.resume(returning: value) }
            },
            closed: { [self] reason in
                let waiters = state.withLock { state in
                    state.closed = reason
                    defer { state.waiters = [] }
                    return state.waiters.map { ($0.continuation, state.received) }
                }
                for (continuation, value) in waiters { continuation.resume(returning: value) }
            }
        )
    }

    private static func takeReady(
        _ state: inout State
    ) -> [(CheckedContinuation<[[UInt8]], Never>, [[UInt8]])] {
        var ready: [(CheckedContinuation<[[UInt8]], Never>, [[UInt8]])] = []
        state.waiters.removeAll { waiter in
            guard state.received.count >= waiter.count else { return false }
            ready.append((waiter.continuation, state.received))
            return true
        }
        return ready
    }

    /// Every PDU received so far.
    public var received: [[UInt8]] { state.withLock { $0.received } }

    /// Why the peer's end stopped, if it has.
    public var closeReason: TransportError? { state.withLock { $0.closed } }

    /// Waits until at least `count` PDUs have arrived (or the link ended) and returns all received.
    public func waitForPDUs(_ count: Int) async -> [[UInt8]] {
        await withCheckedContinuation { continuation in
            let ready: [[UInt8]]? = state.withLock { state in
                if state.received.count >= count || state.closed != nil { return state.received }
                state.waiters.append((count, continuation))
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Sends raw bytes as one PDU.
    public func send(_ bytes: [UInt8]) throws(TransportError) { try transport.send(bytes) }
}
