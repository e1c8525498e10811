import BLEWire

extension GATTClient {
    /// Finds the Service Changed characteristic of the peer's GATT service and subscribes to its
    /// indications (Core 5.4 Vol 3 Part G §7.1). From then on an indicated range invalidates the cached
    /// services, characteristics and descriptors in it, ends the subscriptions in it with
    /// `.serviceChanged`, and calls the `onServiceChanged` handlers. Returns false if the peer has none.
    @discardableResult
    public func enableServiceChanged() async throws(GATTError) -> Bool {
        guard let service = try await discoverPrimaryServices(uuid: BluetoothUUID.genericAttributeService).first,
            let characteristic = try await discoverCharacteristics(of: service, uuid: BluetoothUUID.serviceChanged)
                .first
        else { return false }
        // `self` strongly (no weak reference anywhere, see `init(bearer:)`): the subscription goes when
        // the bearer closes.
        _ = try await subscribe(to: characteristic, kind: .indications) { [self] value in
            guard value.count == 4 else { return }
            let start = UInt16(value[0]) | UInt16(value[1]) << 8
            let end = UInt16(value[2]) | UInt16(value[3]) << 8
            serviceChanged(start: start, end: end, keeping: characteristic.valueHandle)
        }
        return true
    }

    /// Applies a Service Changed range (called on the reader thread).
    func serviceChanged(start: UInt16, end: UInt16, keeping serviceChangedHandle: UInt16) {
        let range = start...max(start, end)
        let (ended, handlers) = state.withLock { state in
            let overlaps = { (first: UInt16, last: UInt16) in first <= range.upperBound && last >= range.lowerBound }
            state.services.removeAll { overlaps($0.handle, $0.endHandle) }
            state.characteristics = state.characteristics.filter { !range.contains($0.key) }
            for (service, list) in state.characteristics {
                state.characteristics[service] = list.filter { !overlaps($0.declarationHandle, $0.endHandle) }
            }
            state.descriptors = state.descriptors.filter { !range.contains($0.key) }
            var ended: [EndCallback] = []
            for valueHandle in state.subscribers.handles
            where range.contains(valueHandle) && valueHandle != serviceChangedHandle {
                ended += (state.subscribers[valueHandle] ?? []).compactMap(\.ended)
                state.subscribers[valueHandle] = nil
                state.cccd[valueHandle] = nil
            }
            return (ended, state.serviceChangedHandlers)
        }
        let reason = GATTError.serviceChanged(start: start, end: end)
        for end in ended { end(reason) }
        for handler in handlers { handler(start, end) }
    }
}
