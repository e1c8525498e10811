public import BLEHost
public import BLEWire
internal import CBlueZ
public import Coordination
internal import Glibc
import Synchronization

/// A raw HCI socket (`HCI_CHANNEL_RAW`) on one adapter that the kernel keeps driving: for sending
/// commands the kernel does not send itself (LE scan, LE Connection Update, LE Set PHY, LE Set Data
/// Length) and for the events they cause. Needs `CAP_NET_RAW`.
///
/// The socket's HCI filter passes events only: Command Complete and Command Status, which answer
/// `command(opcode:parameters:timeout:)`, and the events `events()` streams (LE Meta, Disconnection
/// Complete, Encryption Change). The kernel's own commands are answered on the same adapter: a Command
/// Complete for an opcode this socket is waiting on is taken as its answer.
public final class HCISocket: Sendable {
    /// The adapter the socket is bound to, as it was when opened.
    public let adapter: HCIAdapterInfo
    let channel: DescriptorChannel
    private let waiters = Mutex<[UInt16: Waiter]>([:])
    private let subscribers = Mutex<Subscribers>(Subscribers())
    private let nextToken = Atomic<UInt64>(1)
    /// The commands' timeouts, on the host's one timer mechanism: a command answered in time costs no
    /// timer of its own, and a wake finds what has expired. Its clock also times `endConnection`.
    let alarm: DeadlineAlarm
    /// What this socket's timeouts are measured on; what scans and tunes through it waits on it too.
    public var clock: any TimeSource { alarm.clock }

    private struct Waiter {
        let token: UInt64
        let continuation: CheckedContinuation<Result<HCICommandResult, HCICommandError>, Never>
        let deadline: Duration
    }

    private struct Subscribers {
        var streams: [UInt64: AsyncStream<HCIEventPacket>.Continuation] = [:]
        var ended: TransportError?
    }

    /// The events the filter lets through.
    static let filteredEvents: [UInt8] = [
        HCIEventPacket.Code.disconnectionComplete, HCIEventPacket.Code.encryptionChange,
        HCIEventPacket.Code.commandComplete, HCIEventPacket.Code.commandStatus, HCIEventPacket.Code.leMeta,
    ]

    /// Opens the named adapter, or the first adapter that is up, and starts reading its events.
    /// Commands' timeouts, and the waits of scanners and tunings on this socket, are measured on `clock`.
    public static func open(
        _ name: HCIAdapterName? = nil,
        clock: any TimeSource = SystemClock()
    ) throws(BLELinuxError) -> HCISocket {
        let adapter = try HCIAdapters.resolve(name)
        let subject = adapter.name.description
        let channel: DescriptorChannel
        do throws(SystemError) {
            channel = try DescriptorChannel(
                socket: try openDescriptor(adapter.name.index),
                name: "hci-\(subject)",
                receiveCapacity: 1024
            )
        } catch {
            throw BLELinuxError(error, subject: subject)
        }
        do throws(TransportError) {
            return try running(adapter: adapter, channel: channel, clock: clock)
        } catch {
            throw BLELinuxError(.system, "\(subject): cannot start the reader thread: \(error)")
        }
    }

    /// A socket over `link`, its reader started.
    static func running(
        adapter: HCIAdapterInfo,
        channel: DescriptorChannel,
        clock: any TimeSource = SystemClock()
    ) throws(TransportError) -> HCISocket {
        let hci = HCISocket(adapter: adapter, channel: channel, clock: clock)
        // The reader holds the socket weakly: dropping the last reference closes it.
        try channel.start(
            deliver: { [weak hci] bytes in hci?.deliver(bytes) },
            closed: { [weak hci] reason in hci?.ended(reason) }
        )
        return hci
    }

    init(adapter: HCIAdapterInfo, channel: DescriptorChannel, clock: any TimeSource = SystemClock()) {
        self.adapter = adapter
        self.channel = channel
        alarm = DeadlineAlarm(clock: clock)
    }

    /// The socket, bound to `index` on the raw channel, with the event filter set. Non-blocking.
    static func openDescriptor(_ index: UInt16) throws(SystemError) -> OwnedDescriptor {
        let socket = try OwnedDescriptor.socket(
            domain: AF_BLUETOOTH,
            type: CInt(SOCK_RAW.rawValue) | CInt(SOCK_NONBLOCK.rawValue),
            protocol: BTPROTO_HCI
        )
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = index
        address.hci_channel = UInt16(HCI_CHANNEL_RAW)
        try socket.bind(address)
        try socket.setOption(level: SOL_HCI, name: HCI_FILTER, eventFilter(filteredEvents))
        return socket
    }

    /// An HCI filter passing event packets with the given codes, whatever their opcode.
    static func eventFilter(_ codes: [UInt8]) -> hci_filter {
        var filter = hci_filter()
        filter.type_mask = 1 << UInt32(HCI_EVENT_PKT)
        for code in codes {
            if code < 32 {
                filter.event_mask.0 |= 1 << UInt32(code)
            } else {
                filter.event_mask.1 |= 1 << UInt32(code - 32)
            }
        }
        return filter
    }

    /// Sends a command without waiting for its answer.
    public func send(opcode: UInt16, parameters: UnsafeRawBufferPointer) throws(HCICommandError) {
        guard parameters.count <= 255 else { throw .parametersTooLong(count: parameters.count) }
        do throws(TransportError) {
            try withUnsafeTemporaryAllocation(byteCount: 3 + parameters.count, alignment: 1) {
                buffer throws(TransportError) in
                buffer[0] = UInt8(truncatingIfNeeded: opcode)
                buffer[1] = UInt8(truncatingIfNeeded: opcode >> 8)
                buffer[2] = UInt8(parameters.count)
                if !parameters.isEmpty {
                    UnsafeMutableRawBufferPointer(rebasing: buffer[3...]).copyMemory(from: parameters)
                }
                try channel.send(prefix: HCIPacketIndicatorByte.command, UnsafeRawBufferPointer(buffer))
            }
        } catch {
            throw .transport(error)
        }
    }

    /// Sends a command and waits for its Command Complete or Command Status.
    public func command(
        opcode: UInt16,
        parameters: [UInt8] = [],
        timeout: Duration = .seconds(2)
    ) async throws(HCICommandError) -> HCICommandResult {
        guard parameters.count <= 255 else { throw .parametersTooLong(count: parameters.count) }
        let token = nextToken.add(1, ordering: .relaxed).newValue
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                register(opcode: opcode, token: token, timeout: timeout, continuation: continuation)
                if Task.isCancelled {
                    // Cancelled before the waiter existed: the cancellation handler found nothing to end.
                    finish(opcode: opcode, token: token, with: .failure(.cancelled(opcode: opcode)))
                    return
                }
                do throws(HCICommandError) {
                    try parameters.withTypedBytes { bytes throws(HCICommandError) in
                        try send(opcode: opcode, parameters: bytes)
                    }
                } catch {
                    finish(opcode: opcode, token: token, with: .failure(error))
                }
            }
        } onCancel: {
            finish(opcode: opcode, token: token, with: .failure(.cancelled(opcode: opcode)))
        }
        return try result.get()
    }

    private func register(
        opcode: UInt16,
        token: UInt64,
        timeout: Duration,
        continuation: CheckedContinuation<Result<HCICommandResult, HCICommandError>, Never>
    ) {
        let deadline = alarm.clock.now + timeout
        let accepted = waiters.withLock { table -> Bool in
            guard table[opcode] == nil else { return false }
            table[opcode] = Waiter(token: token, continuation: continuation, deadline: deadline)
            return true
        }
        guard accepted else {
            continuation.resume(returning: .failure(.alreadyPending(opcode: opcode)))
            return
        }
        wakeForTimeout(by: deadline)
    }

    /// Asks the alarm to call `checkDeadlines` by `deadline`. The clock holds the socket until then (at
    /// most one command timeout after it closes).
    private func wakeForTimeout(by deadline: Duration) {
        alarm.wake(by: deadline) { [self] in checkDeadlines() }
    }

    /// On a wake: fails the commands whose time has run out, and asks to be woken at the earliest
    /// deadline still waiting.
    private func checkDeadlines() {
        let now = alarm.clock.now
        let (expired, next) = waiters.withLock { table -> ([(UInt16, Waiter)], Duration?) in
            let expired = table.filter { $0.value.deadline <= now }
            for (opcode, _) in expired { table[opcode] = nil }
            return (expired.map { ($0.key, $0.value) }, table.values.map(\.deadline).min())
        }
        for (opcode, waiter) in expired {
            waiter.continuation.resume(returning: .failure(.timedOut(opcode: opcode)))
        }
        if let next { wakeForTimeout(by: next) }
    }

    /// Resumes the waiter for `opcode` (if it is still the one with `token`; nil: whichever waits).
    private func finish(opcode: UInt16, token: UInt64?, with result: Result<HCICommandResult, HCICommandError>) {
        let waiter = waiters.withLock { table -> Waiter? in
            guard let waiter = table[opcode], token == nil || waiter.token == token else { return nil }
            table[opcode] = nil
            return waiter
        }
        waiter?.continuation.resume(returning: result)
    }

    /// A stream of the events that are not answers to this socket's commands, from now on. It ends when
    /// the socket closes. Events are buffered up to `bufferSize`; the oldest go first when it is full.
    public func events(bufferSize: Int = 1024) -> AsyncStream<HCIEventPacket> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: HCIEventPacket.self,
            bufferingPolicy: .bufferingNewest(bufferSize)
        )
        let key = nextToken.add(1, ordering: .relaxed).newValue
        let alive = subscribers.withLock { subscribers -> Bool in
            guard subscribers.ended == nil else { return false }
            subscribers.streams[key] = continuation
            return true
        }
        if alive {
            continuation.onTermination = { [weak self] _ in
                _ = self?.subscribers.withLock { $0.streams.removeValue(forKey: key) }
            }
        } else {
            continuation.finish()
        }
        return stream
    }

    /// Hands a Command Complete or Command Status to the command waiting for it; false if none waits.
    func answer(opcode: UInt16, with result: HCICommandResult) -> Bool {
        let waiting = waiters.withLock { $0[opcode] != nil }
        if waiting { finish(opcode: opcode, token: nil, with: .success(result)) }
        return waiting
    }

    func publish(_ event: HCIEventPacket) {
        subscribers.withLock { subscribers in
            for continuation in subscribers.streams.values { continuation.yield(event) }
        }
    }

    /// The reader stopped: fail every waiting command and end every event stream.
    func ended(_ reason: TransportError) {
        let streams = subscribers.withLock { subscribers in
            subscribers.ended = reason
            defer { subscribers.streams = [:] }
            return Array(subscribers.streams.values)
        }
        for stream in streams { stream.finish() }
        let pending = waiters.withLock { table in
            defer { table = [:] }
            return Array(table.values)
        }
        for waiter in pending { waiter.continuation.resume(returning: .failure(.transport(reason))) }
    }

    /// Why the socket stopped reading, once it has.
    public var closeReason: TransportError? { subscribers.withLock { $0.ended } }

    /// Closes the socket: waiting commands fail with `.transport(.closed)` and event streams end.
    public func close() { channel.close() }

    deinit { channel.close() }
}

/// The H4 indicator bytes, as the raw and user-channel sockets put them in front of each packet.
enum HCIPacketIndicatorByte {
    static let command: UInt8 = 0x01
    static let acl: UInt8 = 0x02
    static let event: UInt8 = 0x04
}

extension HCISocket {
    /// Sends a generated command and waits for its Command Complete or Command Status.
    public func command<Command: HCICommandPacket>(
        _ command: Command,
        timeout: Duration = .seconds(2)
    ) async throws(HCICommandError) -> HCICommandResult {
        var writer = ByteWriter(capacity: 3 + Command.minimumLength + 8)
        command.encode(into: &writer)
        // The encoding starts with the opcode and the parameter length; the socket adds both itself.
        return try await self.command(
            opcode: Command.opcode,
            parameters: Array(writer.bytes.dropFirst(3)),
            timeout: timeout
        )
    }
}

extension HCISocket {
    /// Runs on the reader thread for every packet the socket gives (an indicator byte, then the packet).
    func deliver(_ bytes: UnsafeRawBufferPointer) -> TransportError? {
        // The raw channel delivers whole events: indicator, code, length, parameters. Anything else
        // (another packet type, a length that disagrees) is not for us and is skipped.
        guard bytes.count >= 3, bytes[0] == HCIPacketIndicatorByte.event, Int(bytes[2]) == bytes.count - 3 else {
            return nil
        }
        let code = bytes[1]
        let parameters = UnsafeRawBufferPointer(rebasing: bytes[3...])
        switch code {
        case HCIEventPacket.Code.commandComplete where parameters.count >= 3:
            let opcode = UInt16(parameters[1]) | UInt16(parameters[2]) << 8
            if answer(opcode: opcode, with: .complete(returnParameters: Array(parameters[3...]))) { return nil }
        case HCIEventPacket.Code.commandStatus where parameters.count >= 4:
            let opcode = UInt16(parameters[2]) | UInt16(parameters[3]) << 8
            if answer(opcode: opcode, with: .status(parameters[0])) { return nil }
        default:
            break
        }
        publish(HCIEventPacket(code: code, parameters: Array(parameters)))
        return nil
    }
}
