public import BLEHost
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An in-memory `ATTTransport`: one end of a Unix `SOCK_SEQPACKET` socketpair, so that, as with the
/// kernel's L2CAP LE socket, every `send` is one message and every `recv` returns one whole PDU.
///
/// Each end runs its own reader thread once started. Faults (drop, delay, corrupt, truncate,
/// disconnect) can be injected into the PDUs an end sends, to play a misbehaving peer.
public final class SocketPairATTTransport: ATTTransport {
    public let maximumPDULength: Int
    private let descriptor: Int32
    private let state = Mutex(State())

    private struct State {
        var started = false
        var closedLocally = false
        var sent = 0
        var faultRule: ATTFaultRule?
    }

    /// Makes two connected ends. `maximumPDULength` bounds what each end sends and receives.
    public static func makePair(
        maximumPDULength: Int = 1024
    ) throws(TransportError) -> (SocketPairATTTransport, SocketPairATTTransport) {
        var descriptors: [Int32] = [-1, -1]
        let status = descriptors.withUnsafeMutableBufferPointer { pointer in
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, pointer.baseAddress)
        }
        guard status == 0 else { throw .system(syscall: "socketpair", errno: errno) }
        return (
            SocketPairATTTransport(descriptor: descriptors[0], maximumPDULength: maximumPDULength),
            SocketPairATTTransport(descriptor: descriptors[1], maximumPDULength: maximumPDULength)
        )
    }

    private init(descriptor: Int32, maximumPDULength: Int) {
        self.descriptor = descriptor
        self.maximumPDULength = maximumPDULength
    }

    deinit { Glibc.close(descriptor) }

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
        let (closed, index, rule) = state.withLock { state in
            defer { state.sent += 1 }
            return (state.closedLocally, state.sent, state.faultRule)
        }
        if closed { throw .closed }
        var length = pdu.count
        if let fault = rule?(index, pdu) {
            switch fault {
            case .drop:
                return
            case .delay(let duration):
                sleep(for: duration)
            case .corrupt(let offset, let mask):
                if offset < pdu.count {
                    try withUnsafeTemporaryAllocation(byteCount: pdu.count, alignment: 1) {
                        copy throws(TransportError) in
                        copy.copyMemory(from: pdu)
                        copy[offset] ^= mask
                        try write(UnsafeRawBufferPointer(copy))
                    }
                    return
                }
            case .truncate(let newLength):
                length = max(0, min(newLength, pdu.count))
            case .disconnect:
                shutdown(descriptor, Int32(SHUT_RDWR))
                throw .disconnected(reason: nil)
            }
        }
        try write(UnsafeRawBufferPointer(rebasing: pdu[0..<length]))
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        while true {
            let result = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if result >= 0 { return }
            switch errno {
            case EINTR: continue
            case EPIPE, ECONNRESET, ENOTCONN: throw .disconnected(reason: nil)
            case let code: throw .system(syscall: "send", errno: code)
            }
        }
    }

    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let already = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        if already { throw .framing("transport already started") }
        let started = startDetachedThread { [self] in
            let reason = readLoop(receive)
            closed(reason)
        }
        if !started { throw .system(syscall: "pthread_create", errno: errno) }
    }

    /// Receives until the socket ends; returns why it ended.
    private func readLoop(_ receive: (UnsafeRawBufferPointer) -> Void) -> TransportError {
        let capacity = maximumPDULength
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let result = recv(descriptor, buffer.baseAddress, capacity, Int32(MSG_TRUNC))
            if result > 0 {
                // A message longer than the buffer is cut by the kernel; deliver what fits, as a
                // real socket with a receive MTU would.
                receive(UnsafeRawBufferPointer(rebasing: buffer[0..<min(result, capacity)]))
                continue
            }
            if result == 0 {
                // An empty message and end of stream look alike on SEQPACKET; an empty ATT PDU is
                // invalid anyway, so both end the link.
                return state.withLock { $0.closedLocally } ? .closed : .disconnected(reason: nil)
            }
            switch errno {
            case EINTR: continue
            case ECONNRESET: return .disconnected(reason: nil)
            case let code: return .system(syscall: "recv", errno: code)
            }
        }
    }

    public func close() {
        let first = state.withLock { state in
            defer { state.closedLocally = true }
            return !state.closedLocally
        }
        if first { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
