import BLEWire

extension GATTClient {
    /// Subscribes to a characteristic: registers `callback`, then writes the CCCD (Core 5.4 Vol 3 Part G
    /// §4.10, §4.11) unless another subscription already enabled that kind. `kind` defaults to
    /// notifications when the characteristic has them, otherwise indications. `callback` runs on the
    /// reader thread for every value, in order, with borrowed bytes; `ended` is called once if the
    /// subscription ends without `unsubscribe` (disconnect, timeout, Service Changed).
    public func subscribe(
        to characteristic: GATTCharacteristic,
        kind requestedKind: GATTSubscriptionKind? = nil,
        ended: EndCallback? = nil,
        _ callback: @escaping ValueCallback
    ) async throws(GATTError) -> GATTSubscription {
        try await subscribe(to: characteristic, kind: requestedKind, ended: ended, unsubscribed: nil, callback)
    }

    /// `subscribe`, with `unsubscribed` called once when `unsubscribe` removes the subscription.
    func subscribe(
        to characteristic: GATTCharacteristic,
        kind requestedKind: GATTSubscriptionKind?,
        ended: EndCallback?,
        unsubscribed: (@Sendable () -> Void)?,
        _ callback: @escaping ValueCallback
    ) async throws(GATTError) -> GATTSubscription {
        let kind: GATTSubscriptionKind
        if let requested = requestedKind { kind = requested } else { kind = try Self.defaultKind(for: characteristic) }
        let cccd = try await cccdHandle(of: characteristic)
        let valueHandle = characteristic.valueHandle
        let registered: Result<(UInt64, UInt16, UInt16), GATTError> = state.withLock { state in
            if let closed = state.closed { return .failure(closed) }
            state.nextID += 1
            let subscriber = Subscriber(
                id: state.nextID,
                kind: kind,
                callback: callback,
                ended: ended,
                unsubscribed: unsubscribed
            )
            state.subscribers.append(subscriber, to: valueHandle)
            let old = state.cccd[valueHandle]?.bits ?? 0
            state.cccd[valueHandle] = (cccd, old | kind.cccdBits)
            return .success((state.nextID, old, old | kind.cccdBits))
        }
        let (id, old, new) = try registered.get()
        let subscription = GATTSubscription(id: id, characteristic: characteristic, kind: kind)
        if old != new {
            do throws(GATTError) {
                try await write([UInt8(truncatingIfNeeded: new), UInt8(truncatingIfNeeded: new >> 8)], to: cccd)
            } catch {
                remove(subscription)
                throw error
            }
        }
        return subscription
    }

    /// Subscribes and returns the values as an ordered `AsyncSequence`. Stopping the iteration (or
    /// dropping the stream) unsubscribes; `unsubscribe` with the stream's subscription finishes it.
    public func notifications(
        of characteristic: GATTCharacteristic,
        kind: GATTSubscriptionKind? = nil
    ) async throws(GATTError) -> GATTNotificationStream {
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream(bufferingPolicy: .unbounded)
        let subscription = try await subscribe(
            to: characteristic,
            kind: kind,
            ended: { reason in continuation.finish(throwing: reason) },
            unsubscribed: { continuation.finish() },
            { value in continuation.yield(Array(value)) }
        )
        // `self` strongly (see `init(bearer:)`): the stream lets go of this closure once it terminates.
        continuation.onTermination = { [self] termination in
            guard case .cancelled = termination else { return }
            Task { try? await unsubscribe(subscription) }
        }
        return GATTNotificationStream(subscription: subscription, stream: stream)
    }

    /// Ends a subscription; the CCCD is rewritten when no other subscription needs its kind any more.
    /// Ends a subscription (a stream of `notifications(of:kind:)` finishes); the CCCD is rewritten when
    /// no other subscription needs its kind any more.
    public func unsubscribe(_ subscription: GATTSubscription) async throws(GATTError) {
        let (write, unsubscribed) = remove(subscription)
        unsubscribed?()
        guard let (cccd, new) = write else { return }
        try await self.write([UInt8(truncatingIfNeeded: new), UInt8(truncatingIfNeeded: new >> 8)], to: cccd)
    }

    /// Removes a subscriber; returns the CCCD handle and value to write if the bits changed, and what
    /// the subscriber asked to be called on unsubscribing.
    @discardableResult
    func remove(
        _ subscription: GATTSubscription
    ) -> (write: (UInt16, UInt16)?, unsubscribed: (@Sendable () -> Void)?) {
        state.withLock { state in
            let valueHandle = subscription.characteristic.valueHandle
            guard var list = state.subscribers[valueHandle],
                let index = list.firstIndex(where: { $0.id == subscription.id })
            else { return (nil, nil) }
            let removed = list.remove(at: index)
            state.subscribers[valueHandle] = list
            guard let (cccd, old) = state.cccd[valueHandle] else { return (nil, removed.unsubscribed) }
            let new = list.reduce(UInt16(0)) { $0 | $1.kind.cccdBits }
            state.cccd[valueHandle] = new == 0 ? nil : (cccd, new)
            return (new == old || state.closed != nil ? nil : (cccd, new), removed.unsubscribed)
        }
    }

    static func defaultKind(for characteristic: GATTCharacteristic) throws(GATTError) -> GATTSubscriptionKind {
        if characteristic.properties.contains(.notify) { return .notifications }
        if characteristic.properties.contains(.indicate) { return .indications }
        throw .invalidArgument("\(characteristic) has neither notify nor indicate")
    }

    /// The CCCD of a characteristic, from the descriptor cache or by discovering its descriptors.
    func cccdHandle(of characteristic: GATTCharacteristic) async throws(GATTError) -> UInt16 {
        var descriptors = state.withLock { $0.descriptors[characteristic.valueHandle] }
        if descriptors == nil { descriptors = try await discoverDescriptors(of: characteristic) }
        guard let cccd = descriptors?.first(where: { $0.uuid == BluetoothUUID.clientCharacteristicConfiguration })
        else {
            throw .notFound("no Client Characteristic Configuration descriptor for \(characteristic)")
        }
        return cccd.handle
    }
}
