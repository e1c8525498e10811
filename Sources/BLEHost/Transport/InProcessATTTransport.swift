import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One end of an in-process ATT link: a Unix `SOCK_SEQPACKET` socketpair, so that, as with the kernel's
/// L2CAP LE socket, every `send` is one message and every receive one whole PDU; a reader thread per
/// end once started. This is how the command line and rigs without a radio reach a simulated
/// peripheral; `BLETesting` wraps it with fault injection.
public final class InProcessATTTransport: ATTTransport {
    public let maximumPDULength: Int
    private let descriptor: Int32
    private let state = Mutex((started: false, closed: false))

    /// Two connected ends: give one to a `GATTClient`, the other to a `GATTServer`. `maximumPDULength`
    /// bounds what each end sends and receives.
    public static func makePair(
        maximumPDULength: Int = 1024
    ) throws(TransportError) -> (host: InProcessATTTransport, device: InProcessATTTransport) {
        var descriptors: [Int32] = [-1, -1]
        let status = descriptors.withUnsafeMutableBufferPointer { pointer in
            socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, pointer.baseAddress)
        }
        guard status == 0 else { throw .system(syscall: "socketpair", errno: errno) }
        return (
            InProcessATTTransport(descriptor: descriptors[0], maximumPDULength: maximumPDULength),
            InProcessATTTransport(descriptor: descriptors[1], maximumPDULength: maximumPDULength)
        )
    }

    private init(descriptor: Int32, maximumPDULength: Int) {
        self.descriptor = descriptor
        self.maximumPDULength = maximumPDULength
    }

    deinit { Glibc.close(descriptor) }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        guard pdu.count <= maximumPDULength else { throw .pduTooLarge(length: pdu.count, limit: maximumPDULength) }
        if state.withLock({ $0.closed }) { throw .closed }
        while true {
            let result = Glibc.send(descriptor, pdu.baseAddress, pdu.count, Int32(MSG_NOSIGNAL))
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
        let thread = Thread { [self] in closed(readLoop(receive)) }
        thread.name = "InProcessATTTransport.reader"
        thread.start()
    }

    private func readLoop(_ receive: (UnsafeRawBufferPointer) -> Void) -> TransportError {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maximumPDULength, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let result = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC))
            if result > 0 {
                // A message longer than the buffer is cut by the kernel; deliver what fits, as a real
                // socket with a receive MTU would.
                receive(UnsafeRawBufferPointer(rebasing: buffer[0..<min(result, buffer.count)]))
                continue
            }
            // An empty message and end of stream look alike on SEQPACKET; an empty ATT PDU is invalid
            // anyway, so both end the link.
            if result == 0 { return state.withLock { $0.closed } ? .closed : .disconnected(reason: nil) }
            if errno == EINTR { continue }
            return errno == ECONNRESET ? .disconnected(reason: nil) : .system(syscall: "recv", errno: errno)
        }
    }

    /// Drops the link as a peer going out of range would: both ends see a disconnection, not a
    /// local close.
    public func disconnect() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    public func close() {
        let first = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        if first { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }
}
