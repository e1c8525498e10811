import BLEWire
public import Coordination
import Synchronization

/// The GATT client procedures of Core 5.4 Vol 3 Part G §4 over one `ATTBearer`: discovery, reads,
/// writes, paced writes without response, and subscriptions with a synchronous callback (the hot path)
/// or an ordered `AsyncSequence`.
///
/// Notifications reach callbacks on the transport's reader thread, in order, with a borrowed value and
/// no allocation. Discovered services, characteristics and descriptors are cached until a Service
/// Changed indication covers them (see `enableServiceChanged()`).
public final class GATTClient: Sendable {
    /// Called on the reader thread with each value of a subscribed characteristic; the bytes are valid
    /// only during the call.
    public typealias ValueCallback = @Sendable (_ value: UnsafeRawBufferPointer) -> Void
    /// Called once when a subscription ends without `unsubscribe`: disconnect, timeout, Service Changed.
    public typealias EndCallback = @Sendable (_ reason: GATTError) -> Void

    /// The bearer the client runs on. The client installs the bearer's notification handler and a close
    /// handler, so do not replace the notification handler.
    public let bearer: ATTBearer
    let state = Mutex(State())

    /// One subscription's callbacks. A class: the array of a handle's subscribers is copied out of the
    /// lock, and updated in it, one reference per subscriber instead of three closures.
    final class Subscriber: Sendable {
        let id: UInt64
        let kind: GATTSubscriptionKind
        let callback: ValueCallback
        let ended: EndCallback?
        let unsubscribed: (@Sendable () -> Void)?

        init(
            id: UInt64,
            kind: GATTSubscriptionKind,
            callback: @escaping ValueCallback,
            ended: EndCallback?,
            unsubscribed: (@Sendable () -> Void)?
        ) {
            self.id = id
            self.kind = kind
            self.callback = callback
            self.ended = ended
            self.unsubscribed = unsubscribed
        }
    }

    struct State {
        var nextID: UInt64 = 0
        var subscribers = SubscriberTable()
        /// The CCCD value written per characteristic value handle.
        var cccd: [UInt16: (handle: UInt16, bits: UInt16)] = [:]
        var services: [GATTService] = []
        var characteristics: [UInt16: [GATTCharacteristic]] = [:]
        var descriptors: [UInt16: [GATTDescriptor]] = [:]
        var serviceChangedHandlers: [@Sendable (_ start: UInt16, _ end: UInt16) -> Void] = []
        var pacers: [ObjectIdentifier: any GATTWritePacing] = [:]
        var closed: GATTError?
        var observer: (any NotificationObserver)?
        var securityRaiser: SecurityRaiser?
    }

    /// Asked when the server answers a request with Insufficient Encryption, Insufficient Authentication
    /// or Encryption Key Size Too Short: raise the link's security (pair, or encrypt from a bond) and
    /// return true to have the request sent once more.
    public typealias SecurityRaiser = @Sendable (_ code: ATTErrorCode) async -> Bool

    /// Installs (or with nil removes) what raises the link's security on such an error.
    public func onInsufficientSecurity(_ raiser: SecurityRaiser?) {
        state.withLock { $0.securityRaiser = raiser }
    }

    /// Attaches a client to `bearer` (before or after it starts).
    ///
    /// The bearer holds the client strongly until it closes (it drops its handlers then), as the
    /// transport's reader holds the bearer. Nothing refers to a client weakly: one weak reference would
    /// give it a side table for good, and make every retain and release of it, one per notification,
    /// take the runtime's slow path.
    public init(bearer: ATTBearer) {
        self.bearer = bearer
        bearer.setNotificationHandler { [self] handle, value, _ in deliver(handle: handle, value: value) }
        bearer.onClose { [self] reason in bearerClosed(reason) }
    }

    /// Starts a bearer on `transport`, attaches a client, and exchanges MTU (offering `mtu`, up to 517;
    /// pass 23 to skip the exchange).
    public static func connect(
        transport: any ATTTransport,
        mtu: Int = ATTBearer.maximumMTU,
        clock: any TimeSource = SystemClock()
    ) async throws(GATTError) -> GATTClient {
        let bearer = ATTBearer(transport: transport, preferredMTU: mtu, clock: clock)
        let client = GATTClient(bearer: bearer)
        try bearer.start()
        if bearer.preferredMTU > ATTBearer.defaultMTU { try await bearer.exchangeMTU() }
        return client
    }

    /// The negotiated ATT_MTU.
    public var mtu: Int { bearer.mtu }

    /// Services discovered so far and not invalidated by Service Changed.
    public var cachedServices: [GATTService] { state.withLock { $0.services } }

    /// Characteristics discovered in `service` and still valid (empty if not discovered).
    public func cachedCharacteristics(of service: GATTService) -> [GATTCharacteristic] {
        state.withLock { $0.characteristics[service.handle] ?? [] }
    }

    /// Registers a handler for Service Changed ranges (called on the reader thread).
    public func onServiceChanged(_ handler: @escaping @Sendable (_ start: UInt16, _ end: UInt16) -> Void) {
        state.withLock { $0.serviceChangedHandlers.append(handler) }
    }

    /// Tells `observer` of every notification and indication from now on, on the reader thread as each
    /// arrives, before its subscribers; nil stops telling.
    public func observeNotifications(_ observer: (any NotificationObserver)?) {
        state.withLock { $0.observer = observer }
    }

    /// The hot path: hands a notification or indication value to the subscribers of its handle.
    func deliver(handle: UInt16, value: UnsafeRawBufferPointer) {
        let (subscribers, observer) = state.withLock { ($0.subscribers[handle], $0.observer) }
        observer?.notificationArrived()
        guard let subscribers else { return }
        // Through the buffer: each subscriber is borrowed from the array held here, not copied out.
        subscribers.withUnsafeBufferPointer { list in
            for index in list.indices { list[index].callback(value) }
        }
    }

    private func bearerClosed(_ reason: GATTError) {
        let (ended, pacers) = state.withLock { state in
            state.closed = reason
            let ended = state.subscribers.all.compactMap(\.ended)
            state.subscribers = SubscriberTable()
            let pacers = Array(state.pacers.values)
            state.pacers = [:]
            return (ended, pacers)
        }
        for end in ended { end(reason) }
        for pacer in pacers { pacer.close(reason) }
    }

    /// Sends `pdu` as a request and decodes the response as `Response`.
    func exchange<Response: WireCodable>(
        _ pdu: some WireCodable,
        as response: Response.Type
    ) async throws(GATTError) -> Response {
        let request = pdu.encodedBytes
        let bytes: [UInt8]
        do throws(GATTError) {
            bytes = try await bearer.request(request)
        } catch {
            guard case .att(let refusal) = error, refusal.code.asksForSecurity,
                let raiser = state.withLock({ $0.securityRaiser }), await raiser(refusal.code)
            else { throw error }
            bytes = try await bearer.request(request)
        }
        do {
            return try Response(bytes: bytes)
        } catch {
            throw .invalidResponse(request: request[0], error)
        }
    }
}

extension ATTErrorCode {
    /// Insufficient Encryption, Insufficient Authentication or Encryption Key Size Too Short: the server
    /// wants a better-secured link, which pairing (or encrypting from a bond) can give.
    public var asksForSecurity: Bool {
        self == .insufficientEncryption || self == .insufficientAuthentication || self == .encryptionKeySizeTooShort
    }
}
