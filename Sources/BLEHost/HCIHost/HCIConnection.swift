public import BLEWire
import Synchronization

/// One LE link of an `HCIHost`. `att` carries the ATT fixed channel (CID 4) as an `ATTTransport`;
/// the LE signaling channel (CID 5) is answered by the host itself; the Security Manager (CID 6) pairs
/// and encrypts on request (`pair`, `startEncryption`); `events` reports parameter, data length and
/// PHY changes and, last, the disconnection.
public final class HCIConnection: Sendable, CustomStringConvertible {
    /// The connection handle the controller assigned.
    public let handle: UInt16
    /// The peer's address, with the type the connection-complete event gave.
    public let peer: BluetoothAddress
    /// 0 central, 1 peripheral.
    public let role: UInt8
    /// ATT over L2CAP CID 4 on this link: give it to `GATTClient.connect(transport:)`.
    public let att: HCIATTChannel
    /// Changes on the link, in order; finishes after `.disconnected`. Bounded: when nobody reads it,
    /// the newest `eventLimit` are kept (`.disconnected`, the last, always) and the older ones are
    /// dropped and counted in `HCIHost.statistics.droppedLinkEvents`, so a controller or a peer that
    /// floods the link with updates cannot grow the host's memory.
    public let events: AsyncStream<HCIConnectionEvent>
    /// How many link events `events` holds for a reader that has not taken them.
    public static let eventLimit = 256
    let eventSink: AsyncStream<HCIConnectionEvent>.Continuation
    private let eventObserver = Mutex<(@Sendable (HCIConnectionEvent) -> Void)?>(nil)
    let reassembler = L2CAPReassembler()
    /// SMP commands (CID 6) for the pairing running on this link (see `HCIConnection+Security`).
    let securityInbox: TimedMailbox<SecurityInboxItem>
    /// The LE Connection Update a peer's accepted request asks for, and the reply to the controller's
    /// LE Remote Connection Parameter Request: each the newest only (see `NewestCommandSender`).
    let parameterUpdates = NewestCommandSender()
    let parameterReplies = NewestCommandSender()
    /// Strong: the host keeps its connections until they end, so the cycle ends with the link.
    let host: HCIHost
    let state: Mutex<State>

    struct State {
        var interval: UInt16
        var latency: UInt16
        var supervisionTimeout: UInt16
        var disconnectReason: UInt8?
        /// An HCI Disconnect is on its way (or about to be): no second one is sent.
        var disconnecting = false
        var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
        var signalingIdentifier: UInt8 = 0
        /// The last LE Data Length Change and successful PHY Update Complete (nil: none seen).
        var dataLength: LinkDataLengthState?
        var phy: LinkPHYState?
        /// A pairing runs: SMP commands go to `securityInbox`.
        var pairing = false
        /// The link's encryption (nil: not encrypted).
        var encryption: LinkEncryption?
        /// LE Enable Encryption was sent: the next Encryption Change goes to `encryptionWaiter`, or waits
        /// in `encryptionResult` when it comes first.
        var encryptionPending: (key: LinkEncryption, id: UInt64)?
        var encryptionResult: HCIStatus?
        /// Boxed: see `Boxed`.
        var encryptionWaiter: Boxed<CheckedContinuation<HCIStatus?, Never>>?
        var encryptionAttempts: UInt64 = 0
        /// The authentication requirements of the peer's last Security Request.
        var securityRequest: UInt8?
    }

    init(
        host: HCIHost,
        handle: UInt16,
        peer: BluetoothAddress,
        role: UInt8,
        interval: UInt16,
        latency: UInt16,
        timeout: UInt16
    ) {
        self.host = host
        self.handle = handle
        self.peer = peer
        self.role = role
        state = Mutex(State(interval: interval, latency: latency, supervisionTimeout: timeout))
        (events, eventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Self.eventLimit))
        att = HCIATTChannel(host: host, handle: handle)
        securityInbox = TimedMailbox(clock: host.clock)
    }

    /// `connection 0x<handle> to <peer>`, the handle in four hex digits.
    public var description: String { "connection 0x\(hex4(handle)) to \(peer)" }

    /// Hands `event` to the observer and to `events`, counting the one the bound pushed out.
    func report(_ event: HCIConnectionEvent) {
        eventObserver.withLock { $0 }?(event)
        if case .dropped = eventSink.yield(event) { host.state.withLock { $0.statistics.droppedLinkEvents += 1 } }
    }

    /// Hears each change on the link as `events` gets it, on the host's reader thread, whether or not
    /// anything reads `events` (a log line; keep it short). One observer; nil removes it.
    public func observeEvents(_ observer: (@Sendable (HCIConnectionEvent) -> Void)?) {
        eventObserver.withLock { $0 = observer }
    }

    /// Current interval (1.25 ms), peripheral latency, supervision timeout (10 ms).
    public var parameters: (interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        state.withLock { ($0.interval, $0.latency, $0.supervisionTimeout) }
    }

    /// The HCI reason the link ended with, or nil while it is up.
    public var disconnectReason: UInt8? { state.withLock { $0.disconnectReason } }

    /// Sends HCI Disconnect (default reason Remote User Terminated Connection) and waits, bounded by
    /// the command timeout, for Disconnection Complete. Returns at once if the link is already down.
    public func disconnect(reason: UInt8 = 0x13) async throws(HCIHostError) {
        // One HCI Disconnect per link: a second caller waits for the first one's outcome.
        let first = state.withLock { state -> Bool in
            guard state.disconnectReason == nil, !state.disconnecting else { return false }
            state.disconnecting = true
            return true
        }
        if first {
            await drain()
            if disconnectReason == nil {
                try await host.sendExpectingStatus(HCIDisconnect(connectionHandle: handle, reason: reason))
            }
        }
        // Bounded by one command timeout, a wake of the host's clock (a late wake finds no waiter).
        host.clock.wake(at: host.clock.now + host.configuration.commandTimeout) { [weak self] in
            self?.wakeDisconnectWaiters()
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let down = state.withLock { state in
                if state.disconnectReason != nil { return true }
                state.disconnectWaiters.append(continuation)
                return false
            }
            if down { continuation.resume() }
        }
        if disconnectReason == nil { throw .commandTimeout(opcode: HCIDisconnect.opcode) }
    }

    /// Before a disconnect: waits (bounded by the command timeout) until the controller has completed
    /// every ACL packet queued for this link, so Write Commands and the last serial bytes are on the
    /// air, then lingers `Self.linger` so a slow peer handles them before the link goes.
    private func drain() async {
        let deadline = ContinuousClock.now + host.configuration.commandTimeout
        while host.state.withLock({ $0.flow.isBusy(handle) }), disconnectReason == nil, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        if disconnectReason == nil { try? await Task.sleep(for: Self.linger) }
    }

    /// A `disconnect()` has begun (it may still be waiting for queued packets to complete).
    package var isDisconnecting: Bool { state.withLock { $0.disconnecting } }

    /// How long a link stays up after its last ACL packet completed, before the host disconnects it.
    public static let linger: Duration = .milliseconds(50)

    private func wakeDisconnectWaiters() {
        let waiters = state.withLock { state in
            defer { state.disconnectWaiters = [] }
            return state.disconnectWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Why the link ended, as the host saw it.
    enum Ending {
        case reason(UInt8)
        case closedTransport(TransportError)
    }

    /// The link is gone: fail the ATT channel, finish `events`, wake `disconnect()` callers.
    func didDisconnect(_ ending: Ending) {
        let reason: UInt8
        let transportError: TransportError
        switch ending {
        case .reason(let code):
            reason = code
            transportError = .disconnected(reason: code)
        case .closedTransport(let error):
            reason = 0x08
            transportError = error
        }
        state.withLock { state in
            if state.disconnectReason == nil { state.disconnectReason = reason }
        }
        att.linkClosed(transportError)
        securityInbox.push(.closed(reason))
        finishEncryption(nil)
        report(.disconnected(reason: reason))
        eventSink.finish()
        wakeDisconnectWaiters()
    }

    /// A complete L2CAP frame (reader thread).
    func receiveL2CAP(_ channel: UInt16, _ payload: UnsafeRawBufferPointer) {
        switch channel {
        case 0x0004: att.deliver(payload)
        case 0x0005: receiveSignaling(payload)
        case 0x0006: receiveSecurity(payload)
        default: host.state.withLock { $0.statistics.droppedL2CAP += 1 }
        }
    }
}

/// What happened on a link, in order.
public enum HCIConnectionEvent: Sendable, Hashable {
    /// LE Connection Update Complete (interval 1.25 ms, timeout 10 ms units).
    case parametersUpdated(status: HCIStatus, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    /// The peer asked for new parameters (L2CAP request or LL Remote Connection Parameter Request);
    /// `accepted` tells how the host answered.
    case parameterRequest(HCIConnectionParameters, accepted: Bool, viaL2CAP: Bool)
    /// LE Data Length Change: the largest payload (octets) and air time (µs) of one link-layer data PDU now
    /// in use each way.
    case dataLengthChanged(maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16)
    /// LE PHY Update Complete: the PHYs now used to transmit and receive (1 = 1M, 2 = 2M, 3 = Coded), or
    /// the error `status` of an update that failed.
    case phyUpdated(status: HCIStatus, tx: UInt8, rx: UInt8)
    /// The last event: Disconnection Complete's reason (0x08 when the transport went away).
    case disconnected(reason: UInt8)
}
