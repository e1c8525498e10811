import BLEHost
internal import CBlueZ
internal import Glibc
import Synchronization

/// One open link (an L2CAP or HCI socket, a UART, a TCP stream) and its reader thread.
///
/// The reader blocks in `epoll_wait` on the link and on an eventfd used to wake it. When the link is
/// readable it reads into one buffer that it reuses for every read, and calls the delivery closure
/// synchronously, in order: nothing is allocated per PDU. It drains the link on each wake, or reads
/// once per wake while packets come one at a time (`ReadPacing`). The reader closes the descriptor when it
/// stops, then calls `closed` exactly once. `close()` wakes it and waits for that, unless it is called
/// on the reader thread itself (from inside a delivery), where it only asks the reader to stop.
final class PacketLink: Sendable {
    private struct State: ~Copyable {
        var socket: SocketDescriptor?
        var started = false
        var finished = false
        var readerThread: pthread_t?
    }

    private let state: Mutex<State>
    private let stopRequested = Atomic<Bool>(false)
    /// The descriptor number, for the reader: valid until the reader itself closes it.
    private let fd: CInt
    private let epoll: SocketDescriptor
    private let wakeup: SocketDescriptor
    private let finishedSignal = Mutex<Bool>(false)
    private let receiveCapacity: Int
    private let sendTimeout: Duration
    /// Sockets are written with `send(MSG_NOSIGNAL)`; other descriptors (a tty) with `write`.
    private let isSocket: Bool
    private let name: String

    private static let socketToken: UInt64 = 1
    private static let wakeToken: UInt64 = 2

    /// Takes ownership of `socket`, which must be non-blocking.
    init(
        socket: consuming SocketDescriptor,
        name: String,
        receiveCapacity: Int,
        sendTimeout: Duration = .seconds(10),
        isSocket: Bool = true
    ) throws(SystemError) {
        fd = socket.rawValue
        let flags = CInt(EPOLL_CLOEXEC)
        epoll = SocketDescriptor(rawValue: try blockingSyscall(.epollCreate) { system_epoll_create1(flags) })
        let eventFlags = CInt(EFD_CLOEXEC | EFD_NONBLOCK)
        wakeup = SocketDescriptor(rawValue: try blockingSyscall(.eventfd) { system_eventfd(0, eventFlags) })
        try Self.watch(epoll: epoll.rawValue, fd: fd, token: Self.socketToken)
        try Self.watch(epoll: epoll.rawValue, fd: wakeup.rawValue, token: Self.wakeToken)
        state = Mutex(State(socket: socket))
        self.receiveCapacity = receiveCapacity
        self.sendTimeout = sendTimeout
        self.isSocket = isSocket
        self.name = name
    }

    private static func watch(epoll: CInt, fd: CInt, token: UInt64) throws(SystemError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
        event.data.u64 = token
        _ = try blockingSyscall(.epollControl) { system_epoll_ctl(epoll, CInt(EPOLL_CTL_ADD), fd, &event) }
    }

    /// Starts the reader thread. `deliver` runs for every read; `closed` runs once at the end.
    func start(deliver: @escaping Delivery, closed: @escaping @Sendable (TransportError) -> Void) throws(TransportError)
    {
        let mayStart = state.withLock { state -> Bool in
            guard !state.started, state.socket != nil else { return false }
            state.started = true
            return true
        }
        guard mayStart else { throw .closed }
        do {
            try ThreadSpawner.spawn(name: name) { [self] in run(deliver: deliver, closed: closed) }
        } catch {
            state.withLock { $0.started = false }
            throw .system(syscall: error.syscall.rawValue, errno: error.errno)
        }
    }

    /// Sends `prefix` (if any) and `bytes` as one write, waiting for room when the socket is full.
    func send(prefix: UInt8? = nil, _ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        if let prefix {
            // One datagram must be one write: the indicator and the packet are joined in a stack buffer
            // for the sizes HCI uses, in a heap buffer only for larger ones.
            let total = bytes.count + 1
            try withUnsafeTemporaryAllocation(byteCount: total, alignment: 1) { buffer throws(TransportError) in
                buffer[0] = prefix
                if !bytes.isEmpty {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[1...]).copyMemory(from: bytes)
                }
                try sendWhole(UnsafeRawBufferPointer(buffer))
            }
        } else {
            try sendWhole(bytes)
        }
    }

    /// Runs `body` with the descriptor while the link is open; `.closed` once it is not.
    func withSocket<Result>(
        _ body: (borrowing SocketDescriptor) throws(SystemError) -> Result
    ) throws(TransportError) -> Result {
        let outcome: Swift.Result<Result, TransportError> = state.withLock { state in
            switch state.socket {
            case .none: return .failure(.closed)
            case .some(let socket):
                do throws(SystemError) {
                    return .success(try body(socket))
                } catch {
                    return .failure(.system(syscall: error.syscall.rawValue, errno: error.errno))
                }
            }
        }
        return try outcome.get()
    }

    private func sendWhole(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        let timeout = sendTimeout
        let isSocket = isSocket
        let result: Result<Void, TransportError> = state.withLock { state in
            switch state.socket {
            case .none: return .failure(.closed)
            case .some(let socket): return Self.write(bytes, to: socket, isSocket: isSocket, timeout: timeout)
            }
        }
        try result.get()
    }

    private static func write(
        _ bytes: UnsafeRawBufferPointer,
        to socket: borrowing SocketDescriptor,
        isSocket: Bool,
        timeout: Duration
    ) -> Result<Void, TransportError> {
        var sent = 0
        while sent < bytes.count || (bytes.isEmpty && sent == 0) {
            do throws(SystemError) {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[sent...])
                switch try isSocket ? socket.send(rest) : socket.write(rest) {
                case .processed(let count):
                    if bytes.isEmpty { return .success(()) }
                    sent += count
                case .wouldBlock:
                    let outcome = try Poll.wait(
                        fd: socket.rawValue,
                        events: Int16(POLLOUT),
                        cancel: nil,
                        timeout: timeout
                    )
                    if outcome == .timedOut { return .failure(.system(syscall: "write", errno: EAGAIN)) }
                }
            } catch {
                return .failure(Self.transportError(error))
            }
        }
        return .success(())
    }

    /// Stops the reader (if it runs), closes the descriptor and waits until `closed` has been called.
    func close() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        let (started, onReader) = state.withLock { state -> (Bool, Bool) in
            guard let reader = state.readerThread else { return (state.started, false) }
            return (state.started, pthread_equal(reader, pthread_self()) != 0)
        }
        if !started {
            let socket = state.withLock { state -> SocketDescriptor? in
                state.started = true
                state.finished = true
                return state.socket.take()
            }
            try? socket?.close()
            finishedSignal.withLock { $0 = true }
            return
        }
        var one: UInt64 = 1
        _ = try? withUnsafeBytes(of: &one) { bytes throws(SystemError) in try wakeup.write(bytes) }
        if onReader { return }
        waitUntilFinished()
    }

    /// Blocks until the reader has stopped (polling with a short sleep: only close and tests wait).
    private func waitUntilFinished() {
        while !finishedSignal.withLock({ $0 }) { usleep(200) }
    }

    var isFinished: Bool { finishedSignal.withLock { $0 } }

    private func run(deliver: Delivery, closed: @Sendable (TransportError) -> Void) {
        state.withLock { $0.readerThread = pthread_self() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: receiveCapacity, alignment: 16)
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: 2)
        let reason = loop(buffer: buffer, events: events, deliver: deliver)
        buffer.deallocate()
        events.deallocate()
        let socket = state.withLock { state -> SocketDescriptor? in
            state.finished = true
            return state.socket.take()
        }
        try? socket?.close()
        closed(reason)
        finishedSignal.withLock { $0 = true }
    }

    private func loop(
        buffer: UnsafeMutableRawBufferPointer,
        events: UnsafeMutablePointer<epoll_event>,
        deliver: Delivery
    ) -> TransportError {
        var pacing = ReadPacing()
        while true {
            if stopRequested.load(ordering: .relaxed) { return .closed }
            let ready: CInt
            do throws(SystemError) {
                guard
                    case .processed(let count) = try retryingSyscall(
                        .epollWait,
                        {
                            system_epoll_wait(epoll.rawValue, events, 2, -1)
                        }
                    )
                else { continue }
                ready = count
            } catch {
                return Self.transportError(error)
            }
            var hungUp = false
            for index in 0..<Int(ready) {
                if events[index].data.u64 == Self.wakeToken { return .closed }
                hungUp = hungUp || events[index].events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
            }
            let once = !hungUp && pacing.readsOnce
            let (reason, reads) = drain(buffer: buffer, deliver: deliver, once: once)
            if let reason { return reason }
            pacing.woke(reads: reads, drained: !once)
            // Hung up or failed, yet nothing more to read: stop rather than wake again at once.
            if hungUp { return .disconnected(reason: nil) }
        }
    }

    /// Reads until the socket would block (or, with `once`, at most one read), delivering each read.
    /// Returns why to stop, if it must, and how many reads delivered bytes.
    private func drain(
        buffer: UnsafeMutableRawBufferPointer,
        deliver: Delivery,
        once: Bool
    ) -> (TransportError?, Int) {
        var reads = 0
        while true {
            do throws(SystemError) {
                switch try retryingSyscall(.read, { system_read(fd, buffer.baseAddress!, buffer.count) }) {
                case .wouldBlock:
                    return (nil, reads)
                case .processed(0):
                    return (.disconnected(reason: nil), reads)
                case .processed(let count):
                    reads += 1
                    if let reason = deliver(UnsafeRawBufferPointer(rebasing: buffer[..<count])) {
                        return (reason, reads)
                    }
                    if stopRequested.load(ordering: .relaxed) { return (.closed, reads) }
                    if once { return (nil, reads) }
                }
            } catch {
                return (Self.transportError(error), reads)
            }
        }
    }

    /// A link that went away is `.disconnected`; anything else is the system error.
    static func transportError(_ error: SystemError) -> TransportError {
        switch error.errno {
        case ECONNRESET, ENOTCONN, EHOSTDOWN, ETIMEDOUT, ECONNABORTED, EPIPE, ENODEV, EIO:
            .disconnected(reason: nil)
        default:
            .system(syscall: error.syscall.rawValue, errno: error.errno)
        }
    }
}
