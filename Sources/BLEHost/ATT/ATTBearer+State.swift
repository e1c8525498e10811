extension ATTBearer {
    /// The caller waiting for a request's response or an indication's confirmation, boxed (see `Boxed`):
    /// held in `State` directly, the continuation would make every lock of it, on the notification path
    /// too, look up metadata.
    typealias Completion = Boxed<CheckedContinuation<Result<[UInt8], GATTError>, Never>>

    /// A request or an indication waiting to be sent or answered.
    struct Outgoing {
        let id: UInt64
        let pdu: [UInt8]
        let completion: Completion
        var opcode: UInt8 { pdu[0] }
    }

    /// One transaction slot: the operation in flight, its deadline, and those waiting behind it.
    struct Slot {
        var inFlight: Outgoing?
        /// The operation in flight was cancelled and its caller already resumed: its response, when it
        /// comes, completes nobody (ATT has no transaction ids, so the slot stays taken until then).
        var inFlightAbandoned = false
        var deadline: Duration = .zero
        var waiting: [Outgoing] = []
        var head = 0

        /// Operations queued behind the one in flight.
        var waitingCount: Int { waiting.count - head }

        /// Queues `operation`; returns it if it became the one in flight (the caller sends it).
        mutating func enqueue(_ operation: Outgoing, deadline: Duration) -> Outgoing? {
            if inFlight == nil {
                inFlight = operation
                inFlightAbandoned = false
                self.deadline = deadline
                return operation
            }
            waiting.append(operation)
            return nil
        }

        /// Completes the operation in flight; the next waiting one becomes in flight and is returned.
        mutating func advance(deadline: Duration) -> (done: Outgoing?, next: Outgoing?) {
            let done = inFlightAbandoned ? nil : inFlight
            inFlight = nil
            inFlightAbandoned = false
            guard head < waiting.count else { return (done, nil) }
            let next = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            }
            inFlight = next
            self.deadline = deadline
            return (done, next)
        }

        /// Takes the operation `id` back from its caller: a waiting one leaves the queue, the one in flight
        /// stays there abandoned. Returns it (for its caller to be resumed) or nil when it is not here.
        mutating func cancel(_ id: UInt64) -> Outgoing? {
            if let current = inFlight, current.id == id {
                guard !inFlightAbandoned else { return nil }
                inFlightAbandoned = true
                return current
            }
            guard let index = waiting[head...].firstIndex(where: { $0.id == id }) else { return nil }
            return waiting.remove(at: index)
        }

        /// Empties the slot, returning everything that was in it.
        mutating func drain() -> [Outgoing] {
            var all: [Outgoing] = []
            if let inFlight, !inFlightAbandoned { all.append(inFlight) }
            all.append(contentsOf: waiting[head...])
            inFlight = nil
            inFlightAbandoned = false
            waiting = []
            head = 0
            return all
        }
    }

    /// The installed handlers.
    struct Handlers {
        var notification: NotificationHandler?
        var request: RequestHandler?
    }

    /// The notification handler and the current ATT_MTU, as the receive path copies them out of the
    /// lock for a PDU: one closure (one retain), in a non-generic struct, where a bare closure returned
    /// through `withLock`'s generic result (or one kept in a generic struct) would be wrapped in a
    /// freshly allocated reabstraction thunk every time.
    struct NotificationRoute {
        let handler: NotificationHandler?
        /// The longest PDU the peer may send (`State.receiveLimit`).
        let limit: Int
    }

    /// The request handler and the current ATT_MTU, copied out of the lock likewise.
    struct RequestRoute {
        let handler: RequestHandler?
        let mtu: Int
    }

    struct State {
        var preferredMTU: Int
        var mtu = ATTBearer.defaultMTU
        /// The transport shares its connection with another ATT client (`ATTTransport.sharesLink`).
        let sharedLink: Bool
        var started = false
        var closeReason: GATTError?
        var nextID: UInt64 = 0
        /// Requests this side sent as a client.
        var requests = Slot()
        /// Indications this side sent as a server.
        var indications = Slot()
        var handlers = Handlers()
        var diagnostic: (@Sendable (String) -> Void)?
        var closeHandlers: [@Sendable (GATTError) -> Void] = []
        var dropped = 0

        init(preferredMTU: Int, sharedLink: Bool) {
            self.preferredMTU = preferredMTU
            self.sharedLink = sharedLink
        }

        /// The longest PDU the peer may send: the ATT_MTU, or on a shared link the largest any client
        /// could have negotiated (the peer follows whichever exchange came first, and this side may
        /// not know of it).
        var receiveLimit: Int { sharedLink ? max(mtu, ATTBearer.maximumMTU) : mtu }

        mutating func makeID() -> UInt64 {
            nextID &+= 1
            return nextID
        }
    }
}
