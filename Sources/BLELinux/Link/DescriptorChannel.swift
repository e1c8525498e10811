import BLEHost
internal import CBlueZ
import Dispatch
internal import Glibc
import Synchronization

/// One open descriptor (an L2CAP or HCI socket, a UART, a TCP stream) and its reader thread: the channel
/// every link and controller transport of this module runs on.
///
/// The reader reads into one buffer that it reuses for every read, and calls the delivery closure
/// synchronously, in order: nothing is allocated per PDU. How it waits for the link is its `ReadMode`:
/// - `.polled` (any descriptor): it blocks in `epoll_wait` on the link and on an eventfd used to wake
///   it, then drains the link, or reads once per wake while packets come one at a time (`ReadPacing`).
/// - `.blocking` (message sockets whose `shutdown` wakes a blocked read: the L2CAP ATT socket, a
///   `SOCK_SEQPACKET` socketpair): the descriptor is made blocking and the reader waits in the read
///   itself instead of in `epoll_wait`. While PDUs come one at a time (a request and its response) it
///   reads them with `recv`, one system call each; when they come faster than it handles them (a
///   stream of notifications) it takes what has queued up with one `recvmmsg` (`MSG_WAITFORONE`, up
///   to `batchSlots` PDUs), choosing between the two as `ReadPacing` does. Sends pass `MSG_DONTWAIT`.
///   While the reader has its own sends queued it waits in `epoll_wait` as in `.polled`, so that it
///   writes them out when the link has room.
///
/// The reader closes the descriptor when it stops, then calls `closed` exactly once. `close()` wakes it
/// (the eventfd; in `.blocking`, also `shutdown`) and waits for that, unless it is called on the reader
/// thread itself (from inside a delivery), where it only asks the reader to stop.
///
/// Sending never holds a lock across a wait, and the reader thread never waits to send. Another thread
/// that finds the link full and nothing queued waits for room with `poll` (no lock held, nothing
/// copied) and writes again. What must stay in order is queued: the rest of a partial write (stream
/// links), and the reader's own sends (confirmations, server responses), which the reader writes out
/// when epoll says the link is writable. The queue is bounded: another thread whose bytes would pass
/// `queueLimit` behind it waits (without any lock) for the reader to drain it, up to the send timeout;
/// the reader's own sends are queued up to `readerQueueLimit`, past which the send fails.
package final class DescriptorChannel: Sendable {
    /// How the reader waits for the link (see the type's comment).
    package enum ReadMode: Sendable {
        case polled
        case blocking
    }

    /// Sockets are written with `send(MSG_NOSIGNAL)`, with `MSG_DONTWAIT` too when the socket itself is
    /// blocking (`.blocking` reads); other descriptors (a tty) with `write`.
    private enum WriteCall {
        case write
        case send(dontWait: Bool)
    }

    private struct State: ~Copyable {
        var socket: OwnedDescriptor?
        var started = false
        var finished = false
        var readerThread: pthread_t?
        /// Bytes the link has not taken yet, oldest first; the first may be the rest of a partial write.
        var queued: [[UInt8]] = []
        var queuedBytes = 0
        /// Whether epoll also reports the socket as writable (while something is queued).
        var watchingWritable = false
        /// Senders waiting for the queue to shrink.
        var waiters: [DispatchSemaphore] = []
    }

    /// The most PDUs one `recvmmsg` of a `.blocking` reader takes (each into its own receive buffer).
    static let batchSlots = 16
    /// `MSG_WAITFORONE` (linux/socket.h; ABI): wait for the first message only.
    private static let waitForOne: CInt = 0x10000

    /// Queued bytes past which a sender other than the reader waits.
    static let queueLimit = 64 * 1024
    /// Queued bytes past which even the reader's sends fail (a peer that never reads).
    static let readerQueueLimit = 1024 * 1024

    private let state: Mutex<State>
    private let stopRequested = Atomic<Bool>(false)
    /// Senders waiting for room now (in `poll` or for the queue to shrink).
    private let waitingSenders = Atomic<Int>(0)
    /// Mirrors `State.watchingWritable` for the reader: in `.blocking`, it reads blocking only while
    /// this is false. Only the reader (and a send before it starts) queues on a message socket, so the
    /// queue cannot fill behind a reader that found this false.
    private let readerPolls = Atomic<Bool>(false)
    private let readsBlocking: Bool
    /// The descriptor number, for the reader: valid until the reader itself closes it.
    private let fd: CInt
    private let epoll: OwnedDescriptor
    private let wakeup: OwnedDescriptor
    private let finishedSignal = Mutex<Bool>(false)
    private let receiveCapacity: Int
    private let sendTimeout: Duration
    /// How bytes go out, the same for every write of the channel.
    private let writeCall: WriteCall
    private let name: String
    /// `.polled` only: pauses after short reads while the link streams (see `ReadHoldoff`).
    private let holdoff: ReadHoldoff?

    private static let socketToken: UInt64 = 1
    private static let wakeToken: UInt64 = 2

    /// Takes ownership of `socket`, which must be non-blocking; with `.blocking` the channel makes it
    /// blocking itself (only for message sockets whose `shutdown` wakes a blocked `recv`).
    init(
        socket: consuming OwnedDescriptor,
        name: String,
        receiveCapacity: Int,
        sendTimeout: Duration = .seconds(10),
        isSocket: Bool = true,
        reads: ReadMode = .polled,
        holdoff: ReadHoldoff? = nil
    ) throws(SystemError) {
        fd = socket.rawValue
        readsBlocking = reads == .blocking && isSocket
        if readsBlocking { try socket.setBlocking() }
        let flags = CInt(EPOLL_CLOEXEC)
        epoll = OwnedDescriptor(rawValue: try blockingSyscall(.epollCreate) { system_epoll_create1(flags) })
        let eventFlags = CInt(EFD_CLOEXEC | EFD_NONBLOCK)
        wakeup = OwnedDescriptor(rawValue: try blockingSyscall(.eventfd) { system_eventfd(0, eventFlags) })
        try Self.watch(epoll: epoll.rawValue, fd: fd, token: Self.socketToken)
        try Self.watch(epoll: epoll.rawValue, fd: wakeup.rawValue, token: Self.wakeToken)
        state = Mutex(State(socket: socket))
        self.receiveCapacity = receiveCapacity
        self.sendTimeout = sendTimeout
        writeCall = isSocket ? .send(dontWait: readsBlocking) : .write
        self.name = name
        self.holdoff = holdoff
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
            // What a send before the start left queued is the reader's to write out now.
            if !state.queued.isEmpty { watchWritable(true, state: &state) }
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
    @inline(__always)
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
        _ body: (borrowing OwnedDescriptor) throws(SystemError) -> Result
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

    private enum SendStep {
        case done
        case failed(TransportError)
        /// Wait for the queue to shrink (the reader writes it out).
        case wait(DispatchSemaphore)
        /// The reader is not running: poll for room, then write again.
        case pollWritable
    }

    /// A send before the reader starts: writes out what earlier such sends queued, then `bytes` (queued
    /// behind them, or its unwritten rest, so that the order holds); done once `bytes` is out.
    private static func sendBeforeStart(
        _ bytes: UnsafeRawBufferPointer,
        queued: inout Bool,
        state: inout State,
        call: WriteCall
    ) -> SendStep {
        switch writeOutQueued(&state, call: call) {
        case .failure(let error): return .failed(error)
        case .success(false): return .pollWritable
        case .success(true): break
        }
        if queued { return .done }
        switch writeSome(bytes, to: state.socket!, call: call) {
        case .failure(let error): return .failed(error)
        case .success(let count) where count == bytes.count: return .done
        case .success(let count):
            state.queued.append(Array(UnsafeRawBufferPointer(rebasing: bytes[count...])))
            state.queuedBytes += bytes.count - count
            queued = true
            return .pollWritable
        }
    }

    /// Writes what the link takes now and queues the rest (see the type's comment); waits only when the
    /// queue is full and the caller is not the reader. Before the reader starts, nobody would write the
    /// queue out: a send then returns once its bytes are written, polling (without a lock) for room.
    private func sendWhole(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        let call = writeCall
        var queuedBeforeStart = false
        let step = state.withLock { state in
            switch sendAtOnce(bytes, state: state) {
            case .none:
                return nextStep(bytes, queuedBeforeStart: &queuedBeforeStart, state: &state, call: call)
            case .some(.success(let written)) where written == bytes.count:
                return SendStep.done
            case .some(.success(let written)):
                return nextStep(
                    bytes,
                    queuedBeforeStart: &queuedBeforeStart,
                    state: &state,
                    call: call,
                    written: written
                )
            case .some(.failure(let error)):
                return .failed(error)
            }
        }
        // A send that goes out at once (the notification and round-trip path) reads no clock.
        if case .done = step { return }
        try finishSending(bytes, from: step, queuedBeforeStart: queuedBeforeStart, call: call)
    }

    /// The common case on a message socket (`.blocking` reads), under the state lock: the reader runs
    /// and nothing is queued ahead, so one `send` goes out at once, without `nextStep`'s bookkeeping.
    /// Returns how many bytes it wrote (0 when the socket is full; a message socket takes all or
    /// nothing) or why it failed, for `nextStep` to go on from; nil when this case does not apply.
    @inline(__always)
    private func sendAtOnce(
        _ bytes: UnsafeRawBufferPointer,
        state: borrowing State
    ) -> Result<Int, TransportError>? {
        guard readsBlocking, state.started, state.queued.isEmpty, state.socket != nil, !bytes.isEmpty else {
            return nil
        }
        let fd = self.fd
        let flags = CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT)
        do throws(SystemError) {
            switch try retryingSyscall(.send, { system_send(fd, bytes.baseAddress!, bytes.count, flags) }) {
            case .processed(let count): return .success(count)
            case .wouldBlock: return .success(0)
            }
        } catch {
            return .failure(Self.transportError(error))
        }
    }

    /// The rest of a send that did not go out at once: waits for room (never on the reader thread) and
    /// tries again, until the bytes are out or queued, the link fails, or `sendTimeout` has passed.
    @inline(never)
    private func finishSending(
        _ bytes: UnsafeRawBufferPointer,
        from first: SendStep,
        queuedBeforeStart: Bool,
        call: WriteCall
    ) throws(TransportError) {
        let deadline = ContinuousClock.now + sendTimeout
        var queuedBeforeStart = queuedBeforeStart
        var step = first
        while true {
            switch step {
            case .done: return
            case .failed(let error): throw error
            case .pollWritable:
                let left = max(.zero, ContinuousClock.now.duration(to: deadline))
                let outcome: Poll.Outcome
                waitingSenders.add(1, ordering: .relaxed)
                defer { waitingSenders.subtract(1, ordering: .relaxed) }
                do throws(SystemError) {
                    outcome = try Poll.wait(fd: fd, events: Int16(POLLOUT), cancel: nil, timeout: left)
                } catch {
                    throw Self.transportError(error)
                }
                if outcome == .timedOut { throw .system(syscall: "write", errno: EAGAIN) }
            case .wait(let waiter):
                waitingSenders.add(1, ordering: .relaxed)
                defer { waitingSenders.subtract(1, ordering: .relaxed) }
                let left = max(.zero, ContinuousClock.now.duration(to: deadline))
                let (seconds, attoseconds) = left.components
                let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
                if waiter.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .timedOut {
                    state.withLock { $0.waiters.removeAll { $0 === waiter } }
                    throw .system(syscall: "write", errno: EAGAIN)
                }
            }
            step = state.withLock { state in
                nextStep(bytes, queuedBeforeStart: &queuedBeforeStart, state: &state, call: call)
            }
        }
    }

    /// One attempt of `sendWhole`, under the state lock: write now, queue, or say how to wait.
    /// `written`: what `sendAtOnce` already wrote of `bytes` in this attempt (it is not written again).
    private func nextStep(
        _ bytes: UnsafeRawBufferPointer,
        queuedBeforeStart: inout Bool,
        state: inout State,
        call: WriteCall,
        written alreadyWritten: Int? = nil
    ) -> SendStep {
        guard state.socket != nil else { return .failed(.closed) }
        if !state.started {
            return Self.sendBeforeStart(bytes, queued: &queuedBeforeStart, state: &state, call: call)
        }
        if queuedBeforeStart { return .done }
        var written = alreadyWritten ?? 0
        if state.queued.isEmpty && alreadyWritten == nil {
            switch Self.writeSome(bytes, to: state.socket!, call: call) {
            case .failure(let error): return .failed(error)
            case .success(let count): written = count
            }
            if written == bytes.count { return .done }
        }
        let onReader = state.readerThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        // Nothing went out and nothing is queued ahead: another thread waits for room itself (no lock
        // held, nothing copied); the reader never waits, it queues.
        if state.queued.isEmpty && written == 0 && !onReader { return .pollWritable }
        let rest = bytes.count - written
        let limit = onReader ? Self.readerQueueLimit : Self.queueLimit
        // A partial write must be completed in order; otherwise queue while there is room.
        if written > 0 || state.queuedBytes + rest <= limit || (onReader && state.queued.isEmpty) {
            state.queued.append(Array(UnsafeRawBufferPointer(rebasing: bytes[written...])))
            state.queuedBytes += rest
            watchWritable(true, state: &state)
            return .done
        }
        if onReader { return .failed(.system(syscall: "write", errno: ENOBUFS)) }
        let waiter = DispatchSemaphore(value: 0)
        state.waiters.append(waiter)
        watchWritable(true, state: &state)
        return .wait(waiter)
    }

    /// Writes until done or the link would block (nothing waits); how many bytes went out.
    private static func writeSome(
        _ bytes: UnsafeRawBufferPointer,
        to socket: borrowing OwnedDescriptor,
        call: WriteCall
    ) -> Result<Int, TransportError> {
        var sent = 0
        repeat {
            do throws(SystemError) {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[sent...])
                let outcome: IOResult<Int>
                switch call {
                case .write: outcome = try socket.write(rest)
                case .send(let dontWait): outcome = try socket.send(rest, dontWait: dontWait)
                }
                switch outcome {
                case .processed(let count):
                    if bytes.isEmpty { return .success(0) }
                    sent += count
                case .wouldBlock:
                    return .success(sent)
                }
            } catch {
                return .failure(Self.transportError(error))
            }
        } while sent < bytes.count
        return .success(sent)
    }

    /// Reader thread, when epoll says the link is writable: writes the queue out in order, stops
    /// watching once it is empty, and wakes the senders waiting for room.
    private func flushQueued() {
        let call = writeCall
        let waiters: [DispatchSemaphore] = state.withLock { state in
            guard state.socket != nil else { return [] }
            if case .failure = Self.writeOutQueued(&state, call: call) {
                // The reader sees the failure on its next read; drop what cannot be sent.
                state.queued = []
                state.queuedBytes = 0
            }
            if state.queued.isEmpty { watchWritable(false, state: &state) }
            guard state.queuedBytes < Self.queueLimit else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// Writes the queue out in order until the link would block; true once it is empty. Under the lock,
    /// with the socket open: the reader's flush and a send before the reader starts share it.
    private static func writeOutQueued(
        _ state: inout State,
        call: WriteCall
    ) -> Result<Bool, TransportError> {
        while let first = state.queued.first {
            let count: Int
            switch first.withUnsafeBytes({ writeSome($0, to: state.socket!, call: call) }) {
            case .failure(let error): return .failure(error)
            case .success(let written): count = written
            }
            state.queuedBytes -= count
            guard count == first.count else {
                state.queued[0] = Array(first[count...])
                return .success(false)
            }
            state.queued.removeFirst()
        }
        return .success(true)
    }

    /// Adds or removes EPOLLOUT on the link's registration (a nonblocking call, made under the lock).
    private func watchWritable(_ on: Bool, state: inout State) {
        guard state.watchingWritable != on else { return }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (on ? EPOLLOUT.rawValue : 0)
        event.data.u64 = Self.socketToken
        let epollFD = epoll.rawValue
        let fd = self.fd
        if (try? blockingSyscall(.epollControl, { system_epoll_ctl(epollFD, CInt(EPOLL_CTL_MOD), fd, &event) })) != nil
        {
            state.watchingWritable = on
            readerPolls.store(on, ordering: .releasing)
        }
    }

    /// Stops the reader (if it runs), closes the descriptor and waits until `closed` has been called.
    func close() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        let (started, onReader) = state.withLock { state -> (Bool, Bool) in
            guard let reader = state.readerThread else { return (state.started, false) }
            return (state.started, pthread_equal(reader, pthread_self()) != 0)
        }
        if !started {
            let socket = state.withLock { state -> OwnedDescriptor? in
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
        // A reader blocked in `recv` does not see the eventfd: shutting the socket down ends its read.
        if readsBlocking { _ = try? withSocket { socket throws(SystemError) in try socket.shutdown() } }
        if onReader { return }
        waitUntilFinished()
    }

    /// Blocks until the reader has stopped (polling with a short sleep: only close and tests wait).
    private func waitUntilFinished() {
        while !finishedSignal.withLock({ $0 }) { usleep(200) }
    }

    var isFinished: Bool { finishedSignal.withLock { $0 } }

    /// Senders waiting for room right now (for tests that check a sender is held back).
    var waitingSenderCount: Int { waitingSenders.load(ordering: .relaxed) }

    private func run(deliver: Delivery, closed: @Sendable (TransportError) -> Void) {
        state.withLock { $0.readerThread = pthread_self() }
        // A `.blocking` reader's buffer holds `batchSlots` PDUs for `recvmmsg`; reads of one use the first.
        let slots = readsBlocking ? Self.batchSlots : 1
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: receiveCapacity * slots, alignment: 16)
        let lengths = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: slots)
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: 2)
        let reason = loop(buffer: buffer, lengths: lengths, events: events, deliver: deliver)
        buffer.deallocate()
        lengths.deallocate()
        events.deallocate()
        let socket = state.withLock { state -> OwnedDescriptor? in
            state.finished = true
            return state.socket.take()
        }
        try? socket?.close()
        let waiters = state.withLock { state in
            state.queued = []
            state.queuedBytes = 0
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
        closed(reason)
        finishedSignal.withLock { $0 = true }
    }

    private func loop(
        buffer: UnsafeMutableRawBufferPointer,
        lengths: UnsafeMutableBufferPointer<UInt32>,
        events: UnsafeMutablePointer<epoll_event>,
        deliver: Delivery
    ) -> TransportError {
        var pacing = ReadPacing()
        var holdoff = self.holdoff
        let single = UnsafeMutableRawBufferPointer(rebasing: buffer[..<receiveCapacity])
        while true {
            if stopRequested.load(ordering: .relaxed) { return .closed }
            if readsBlocking && !readerPolls.load(ordering: .acquiring) {
                let once = pacing.readsOnce
                let (reason, reads) = receiveBlocking(buffer: buffer, lengths: lengths, once: once, deliver: deliver)
                if let reason { return reason }
                pacing.woke(reads: reads, drained: !once)
                continue
            }
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
                if events[index].events & EPOLLOUT.rawValue != 0 { flushQueued() }
            }
            let once = !hungUp && pacing.readsOnce
            let (reason, reads, bytes) = drain(buffer: single, deliver: deliver, once: once)
            if let reason { return reason }
            pacing.woke(reads: reads, drained: !once)
            // Hung up or failed, yet nothing more to read: stop rather than wake again at once.
            if hungUp { return .disconnected(reason: nil) }
            if var pacer = holdoff {
                if pacer.woke(bytes: bytes, at: Self.monotonicNanoseconds()) {
                    // Waits on the wake-up eventfd alone, so that `close()` still ends the pause.
                    let pause = Duration.nanoseconds(Int64(pacer.pause))
                    _ = try? Poll.wait(fd: wakeup.rawValue, events: Int16(POLLIN), cancel: nil, timeout: pause)
                }
                holdoff = pacer
            }
        }
    }

    /// `.blocking`: waits in `recv` for one message, or (`once` false) in `recvmmsg` for the first of up
    /// to `lengths.count`, and delivers them in order. Returns why to stop, if it must, and how many
    /// messages it delivered. A read that ends because `close()` shut the socket down is `.closed`, not a
    /// disconnection; an empty message is the end of the stream (`recvmmsg` fills every slot left with
    /// one).
    private func receiveBlocking(
        buffer: UnsafeMutableRawBufferPointer,
        lengths: UnsafeMutableBufferPointer<UInt32>,
        once: Bool,
        deliver: Delivery
    ) -> (TransportError?, Int) {
        let received: Int
        do throws(SystemError) {
            let outcome: IOResult<Int>
            if once {
                outcome = try retryingSyscall(.recv) { system_recv(fd, buffer.baseAddress!, receiveCapacity, 0) }
                if case .processed(let count) = outcome { lengths[0] = UInt32(count) }
            } else {
                let flags = Self.waitForOne
                outcome = try retryingSyscall(.recvmmsg) {
                    system_recvmmsg(fd, buffer.baseAddress!, slotSize: receiveCapacity, lengths: lengths, flags)
                }
            }
            switch outcome {
            case .wouldBlock: return (nil, 0)
            case .processed(let count): received = once ? 1 : count
            }
        } catch {
            return (stopRequested.load(ordering: .relaxed) ? .closed : Self.transportError(error), 0)
        }
        for index in 0..<received {
            let length = Int(lengths[index])
            if length == 0 {
                return (stopRequested.load(ordering: .relaxed) ? .closed : .disconnected(reason: nil), index)
            }
            let start = index * receiveCapacity
            if let reason = deliver(UnsafeRawBufferPointer(rebasing: buffer[start..<start + length])) {
                return (reason, index + 1)
            }
            if stopRequested.load(ordering: .relaxed) { return (.closed, index + 1) }
        }
        return (nil, received)
    }

    /// Reads until the socket would block (or, with `once`, at most one read), delivering each read.
    /// Returns why to stop, if it must, how many reads delivered bytes, and how many bytes they held.
    private func drain(
        buffer: UnsafeMutableRawBufferPointer,
        deliver: Delivery,
        once: Bool
    ) -> (TransportError?, Int, Int) {
        var reads = 0
        var bytes = 0
        // A socket read blocking is made blocking: its reads here must not wait.
        let dontWait = readsBlocking
        while true {
            do throws(SystemError) {
                switch try Self.readNow(fd, into: buffer, dontWait: dontWait) {
                case .wouldBlock:
                    return (nil, reads, bytes)
                case .processed(0):
                    return (.disconnected(reason: nil), reads, bytes)
                case .processed(let count):
                    reads += 1
                    bytes += count
                    if let reason = deliver(UnsafeRawBufferPointer(rebasing: buffer[..<count])) {
                        return (reason, reads, bytes)
                    }
                    if stopRequested.load(ordering: .relaxed) { return (.closed, reads, bytes) }
                    if once { return (nil, reads, bytes) }
                }
            } catch {
                return (Self.transportError(error), reads, bytes)
            }
        }
    }

    /// One read that does not wait: `read` on a non-blocking descriptor, `recv(MSG_DONTWAIT)` on a
    /// socket made blocking.
    @inline(__always)
    private static func readNow(
        _ fd: CInt,
        into buffer: UnsafeMutableRawBufferPointer,
        dontWait: Bool
    ) throws(SystemError) -> IOResult<Int> {
        if dontWait {
            let flags = CInt(MSG_DONTWAIT)
            return try retryingSyscall(.recv) { system_recv(fd, buffer.baseAddress!, buffer.count, flags) }
        }
        return try retryingSyscall(.read) { system_read(fd, buffer.baseAddress!, buffer.count) }
    }

    /// The monotonic clock, in nanoseconds.
    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
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

/// A `DescriptorChannel` as an `ATTTransport`: one whole PDU per message, as the kernel's L2CAP socket and a
/// `SOCK_SEQPACKET` socketpair give (`L2CAPATTSocket`, `UnixSocketATTTransport`).
extension DescriptorChannel {
    /// Sends one PDU as one message, refusing one longer than `limit`.
    @inline(__always)
    func sendPDU(_ pdu: UnsafeRawBufferPointer, limit: Int) throws(TransportError) {
        guard pdu.count <= limit else { throw .pduTooLarge(length: pdu.count, limit: limit) }
        try send(pdu)
    }

    /// Starts the reader with `receive` for every message, never asking it to stop.
    func startPDUs(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try start(
            deliver: { bytes in
                receive(bytes)
                return nil
            },
            closed: closed
        )
    }
}

/// What the reader thread does with the bytes of one `read`: hands them on and says whether to go on.
/// It runs on the reader thread only, and must not keep `bytes` past the call.
typealias Delivery = @Sendable (_ bytes: UnsafeRawBufferPointer) -> TransportError?
