public import BLEHost
import BLELinux
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An in-memory `ATTTransport` for tests: BLELinux's socketpair `UnixSocketATTTransport`, read by the
/// production reader, with faults (drop, delay, corrupt, truncate, disconnect) injected into the PDUs
/// this end sends, to play a misbehaving peer.
public final class SocketPairATTTransport: ATTTransport {
    private let link: UnixSocketATTTransport
    private let state = Mutex(State())

    private struct State {
        var sent = 0
        var faultRule: ATTFaultRule?
        var sharesLink = false
    }

    public var maximumPDULength: Int { link.maximumPDULength }

    /// Whether this end plays a link shared with another ATT client (as the kernel's is); false
    /// unless set before the bearer is made.
    public var sharesLink: Bool {
        get { state.withLock { $0.sharesLink } }
        set { state.withLock { $0.sharesLink = newValue } }
    }

    /// Makes two connected ends. `maximumPDULength` bounds what each end sends and receives.
    public static func makePair(
        maximumPDULength: Int = 1024
    ) throws(TransportError) -> (SocketPairATTTransport, SocketPairATTTransport) {
        try makePair(maximumPDULength: maximumPDULength, reads: .blocking)
    }

    /// `makePair` with the readers' mode chosen (`Bench stack` measures both).
    package static func makePair(
        maximumPDULength: Int = 1024,
        reads: DescriptorChannel.ReadMode
    ) throws(TransportError) -> (SocketPairATTTransport, SocketPairATTTransport) {
        let (first, second) = try UnixSocketATTTransport.makePair(maximumPDULength: maximumPDULength, reads: reads)
        return (SocketPairATTTransport(link: first), SocketPairATTTransport(link: second))
    }

    private init(link: UnixSocketATTTransport) {
        self.link = link
    }

    /// Sets (or with nil, clears) the rule that picks a fault for each PDU this end sends.
    public func injectFaults(_ rule: ATTFaultRule?) {
        state.withLock { $0.faultRule = rule }
    }

    /// How many PDUs `send` was called with (including dropped ones).
    public var sentCount: Int { state.withLock { $0.sent } }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        guard pdu.count <= maximumPDULength else {
            throw .pduTooLarge(length: pdu.count, limit: maximumPDULength)
        }
        let (index, rule) = state.withLock { state in
            defer { state.sent += 1 }
            return (state.sent, state.faultRule)
        }
        guard let fault = rule?(index, pdu) else { return try link.send(pdu) }
        switch fault {
        case .drop:
            return
        case .delay(let duration):
            sleep(for: duration)
            try link.send(pdu)
        case .corrupt(let offset, let mask):
            guard offset < pdu.count else { return try link.send(pdu) }
            try withUnsafeTemporaryAllocation(byteCount: pdu.count, alignment: 1) { copy throws(TransportError) in
                copy.copyMemory(from: pdu)
                copy[offset] ^= mask
                try link.send(UnsafeRawBufferPointer(copy))
            }
        case .truncate(let newLength):
            try link.send(UnsafeRawBufferPointer(rebasing: pdu[0..<max(0, min(newLength, pdu.count))]))
        case .disconnect:
            link.disconnect()
            throw .disconnected(reason: nil)
        }
    }

    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try link.start(receive: receive, closed: closed)
    }

    public func close() { link.close() }

    private func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
