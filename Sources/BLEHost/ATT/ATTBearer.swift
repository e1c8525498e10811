public import BLEWire
public import Coordination
import Synchronization

/// The ATT protocol engine of one link, for both roles (Core 5.4 Vol 3 Part F §3.3).
///
/// As a client it keeps exactly one request in flight and queues the rest; a request unanswered for
/// 30 s closes the bearer. As a server it answers Exchange MTU itself and hands every other request
/// and command to the installed request handler (a `GATTServer`), or answers Request Not Supported.
///
/// The transport's reader thread drives everything synchronously: responses complete the pending
/// request there, and notifications and indications reach the notification handler there, in order,
/// without allocation. Requests are `async`; state sits behind one lock, never held across a call out.
public final class ATTBearer: Sendable {
    /// The LE default ATT_MTU (Core 5.4 Vol 3 Part F §3.2.8).
    public static let defaultMTU = 23
    /// The largest ATT_MTU: 512-byte attribute values plus the largest header.
    public static let maximumMTU = 517
    /// Bit 6 of an opcode: a command, which gets no response and is ignored when not understood.
    static let commandFlag: UInt8 = 0x40
    /// The ATT transaction timeout (Core 5.4 Vol 3 Part F §3.3.3).
    public static let transactionTimeout: Duration = .seconds(30)

    /// Called on the reader thread for each notification (`isIndication == false`) or indication, in
    /// arrival order. `value` is valid only during the call. Indications are confirmed after it returns.
    public typealias NotificationHandler =
        @Sendable (_ handle: UInt16, _ value: UnsafeRawBufferPointer, _ isIndication: Bool) -> Void

    /// Called on the reader thread for each request or command the peer sends (except Exchange MTU).
    /// Write the whole response PDU to `response` (leave it empty for commands); it is sent on return.
    public typealias RequestHandler =
        @Sendable (_ pdu: UnsafeRawBufferPointer, _ mtu: Int, _ response: inout ByteWriter) -> Void

    /// The link this bearer sends and receives PDUs on; `close()` closes it too.
    public let transport: any ATTTransport
    let timeout: Duration
    /// Wakes `checkDeadlines` when the operation in flight would time out.
    let alarm: DeadlineAlarm
    let state: Mutex<State>
    let scratch = ReaderScratch()

    /// `preferredMTU` is the receive MTU this side offers in an Exchange MTU (as client or server); it
    /// is clamped to 23...517 and to the transport's limit.
    public init(
        transport: any ATTTransport,
        preferredMTU: Int = ATTBearer.maximumMTU,
        clock: any TimeSource = SystemClock(),
        timeout: Duration = ATTBearer.transactionTimeout
    ) {
        self.transport = transport
        alarm = DeadlineAlarm(clock: clock)
        self.timeout = timeout
        let limit = min(ATTBearer.maximumMTU, max(ATTBearer.defaultMTU, transport.maximumPDULength))
        state = Mutex(
            State(
                preferredMTU: min(limit, max(ATTBearer.defaultMTU, preferredMTU)),
                sharedLink: transport.sharesLink
            )
        )
    }

    /// The current ATT_MTU (23 until an Exchange MTU completes).
    public var mtu: Int { state.withLock { $0.mtu } }

    /// The receive MTU this side offers.
    public var preferredMTU: Int { state.withLock { $0.preferredMTU } }

    /// Requests waiting behind the one in flight (for tests that check a request was held back, in the
    /// state where it could have been sent).
    package var waitingRequestCount: Int { state.withLock { $0.requests.waitingCount } }
    /// Indications queued behind the one in flight (for tests that check one is held back).
    package var waitingIndicationCount: Int { state.withLock { $0.indications.waitingCount } }

    /// Why the bearer closed, or nil while it is open.
    public var closeReason: GATTError? { state.withLock { $0.closeReason } }

    /// PDUs received and dropped: responses matching no request, malformed notifications, unknown
    /// responses. Each is also reported through `setDiagnosticHandler`.
    public var droppedPDUCount: Int { state.withLock { $0.dropped } }

    /// Installs the handler for notifications and indications (replacing any earlier one).
    public func setNotificationHandler(_ handler: NotificationHandler?) {
        state.withLock { $0.handlers.notification = handler }
    }

    /// Installs the server-role handler (replacing any earlier one).
    public func setRequestHandler(_ handler: RequestHandler?) {
        state.withLock { $0.handlers.request = handler }
    }

    /// Installs a handler for diagnostics (dropped PDUs and why), called on the reader thread.
    public func setDiagnosticHandler(_ handler: (@Sendable (String) -> Void)?) {
        state.withLock { $0.diagnostic = handler }
    }

    /// Registers `handler` to be called once when the bearer closes, with the reason. Called at once if
    /// it is closed already.
    public func onClose(_ handler: @escaping @Sendable (GATTError) -> Void) {
        let closed: GATTError? = state.withLock { state in
            if let reason = state.closeReason { return reason }
            state.closeHandlers.append(handler)
            return nil
        }
        if let closed { handler(closed) }
    }

    /// Starts the transport's delivery. Install handlers first.
    public func start() throws(GATTError) {
        let already = state.withLock { state in
            defer { state.started = true }
            return state.started || state.closeReason != nil
        }
        if already { throw .invalidArgument("bearer already started or closed") }
        do {
            try transport.start(
                receive: { [self] pdu in receive(pdu) },
                closed: { [self] reason in close(with: .disconnected(reason), closeTransport: false) }
            )
        } catch {
            close(with: .disconnected(error), closeTransport: false)
            throw .disconnected(error)
        }
    }

    /// Closes the bearer and its transport; pending and queued operations fail with
    /// `.disconnected(.closed)`.
    public func close() {
        close(with: .disconnected(.closed), closeTransport: true)
    }
}

/// Reader-thread-only scratch space: the response writer of the server role. Only the transport's one
/// reader thread touches it, which is what makes the unchecked conformance sound.
final class ReaderScratch: @unchecked Sendable {
    var response = ByteWriter(capacity: ATTBearer.maximumMTU)
}
