import Synchronization

/// The ATT fixed channel (L2CAP CID 4) of one `HCIConnection`, as an `ATTTransport`: PDUs are sent as
/// L2CAP frames through the host's ACL flow control and delivered on the transport's reader thread
/// straight from the reassembler. PDUs that arrive before `start` are kept (copied) and delivered first.
public final class HCIATTChannel: ATTTransport {
    /// ATT's largest MTU (Core 5.4 Vol 3 Part F §3.2.8); the L2CAP frame may be up to 65 535 octets.
    public let maximumPDULength = 517
    let host: HCIHost
    /// The connection handle of the link the channel belongs to.
    public let handle: UInt16
    private let state = Mutex(State())

    /// The closures live in a non-generic struct that is copied out of the lock whole: returning a
    /// bare closure through `withLock`'s generic result would allocate a reabstraction thunk per PDU.
    private struct Handlers {
        var receive: (@Sendable (UnsafeRawBufferPointer) -> Void)?
        var closed: (@Sendable (TransportError) -> Void)?
    }

    private struct State {
        var handlers = Handlers()
        var ended: TransportError?
        var endReported = false
        var backlog: [[UInt8]] = []
    }

    init(host: HCIHost, handle: UInt16) {
        self.host = host
        self.handle = handle
    }

    /// Sends one ATT PDU as an L2CAP frame on CID 4, fragmented to the controller's ACL buffer size and
    /// queued behind the host's ACL credits.
    /// - Throws: the reason the channel ended, once it has; `.pduTooLarge` beyond 517 bytes;
    ///   `.disconnected` when the host no longer has the link; or the controller transport's send error.
    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        if let ended = state.withLock({ $0.ended }) { throw ended }
        guard pdu.count <= maximumPDULength else { throw .pduTooLarge(length: pdu.count, limit: maximumPDULength) }
        try host.sendL2CAP(handle: handle, channel: 0x0004, pdu)
    }

    /// Installs the handlers and delivers, first, the PDUs that came before it (at most 64 are kept). A
    /// channel that already ended reports it to `closed` at once.
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let (backlog, ended) = state.withLock { state in
            state.handlers = Handlers(receive: receive, closed: closed)
            defer { state.backlog = [] }
            return (state.backlog, state.ended)
        }
        for pdu in backlog { pdu.withUnsafeBytes { receive($0) } }
        if let ended { report(ended) }
    }

    /// Ends delivery and disconnects the link (in the background, bounded by the command timeout).
    public func close() {
        let first = state.withLock { state in
            defer { if state.ended == nil { state.ended = .closed } }
            return state.ended == nil
        }
        guard first else { return }
        report(.closed)
        let host = host
        let handle = handle
        Task {
            let link = host.state.withLock { $0.connections[handle] }
            try? await link?.disconnect()
        }
    }

    /// One ATT PDU from the reassembler (reader thread).
    func deliver(_ pdu: UnsafeRawBufferPointer) {
        let handlers = state.withLock { state -> Handlers in
            guard state.ended == nil else { return Handlers() }
            if state.handlers.receive == nil, state.backlog.count < 64 { state.backlog.append(Array(pdu)) }
            return state.handlers
        }
        handlers.receive?(pdu)
    }

    /// The link went down or the transport closed.
    func linkClosed(_ reason: TransportError) {
        state.withLock { state in
            if state.ended == nil { state.ended = reason }
        }
        report(reason)
    }

    /// Calls `closed` once, if started, and lets go of the handlers: they hold the bearer, which holds
    /// this channel, and nothing is delivered after the end.
    private func report(_ reason: TransportError) {
        let handlers = state.withLock { state -> Handlers in
            guard !state.endReported, state.handlers.closed != nil else { return Handlers() }
            state.endReported = true
            defer { state.handlers = Handlers() }
            return state.handlers
        }
        handlers.closed?(reason)
    }
}
