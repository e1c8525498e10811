import BLEWire

extension HCIHost {
    /// Every packet from the controller, on the transport's reader thread.
    func receive(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) {
        switch type {
        case .acl: receiveACL(packet)
        case .event: receiveEvent(packet)
        default: state.withLock { $0.statistics.ignoredEvents += 1 }
        }
    }

    private func receiveEvent(_ packet: UnsafeRawBufferPointer) {
        guard packet.count >= 2 else { return ignoreEvent() }
        // The per-packet event is read in place; everything else is rare enough to decode fully.
        if packet[0] == HCINumberOfCompletedPacketsEvent.eventCode { return completedPackets(packet) }
        if packet[0] == 0x3E { offerToLinkEventWaiters(packet) }
        let event: HCIEvent
        do throws(DecodeError) {
            var reader = ByteReader(packet)
            event = try HCIEvent(parsing: &reader)
        } catch {
            return ignoreEvent()
        }
        switch event {
        case .commandComplete(let complete):
            finishCommand(
                opcode: complete.commandOpcode,
                .success(.complete(returnParameters: complete.returnParameters))
            )
        case .commandStatus(let status):
            finishCommand(opcode: status.commandOpcode, .success(.status(status.status.rawValue)))
        case .disconnectionComplete(let complete):
            guard complete.status == .success else { return }
            disconnected(handle: complete.connectionHandle, reason: complete.reason)
        case .leConnectionComplete(let complete): connectionComplete(complete)
        case .leEnhancedConnectionComplete(let complete): connectionComplete(complete)
        case .leEnhancedConnectionCompleteV2(let complete): connectionComplete(complete)
        case .leAdvertisingReport(let event):
            for report in event.reports { advertised(HCIAdvertisement(report)) }
        case .leExtendedAdvertisingReport(let event):
            for report in event.reports { advertised(HCIAdvertisement(report)) }
        case .leConnectionUpdateComplete(let update):
            guard let link = connection(update.connectionHandle) else { return ignoreEvent() }
            if update.status == .success {
                link.state.withLock { state in
                    state.interval = update.connectionInterval
                    state.latency = update.peripheralLatency
                    state.supervisionTimeout = update.supervisionTimeout
                }
            }
            link.report(
                .parametersUpdated(
                    status: update.status,
                    interval: update.connectionInterval,
                    latency: update.peripheralLatency,
                    supervisionTimeout: update.supervisionTimeout
                )
            )
        case .leRemoteConnectionParameterRequest(let request):
            guard let link = connection(request.connectionHandle) else { return ignoreEvent() }
            link.remoteParameterRequest(request)
        case .leDataLengthChange(let change):
            connection(change.connectionHandle)?.state.withLock { state in
                state.dataLength = LinkDataLengthState(
                    maxTxOctets: change.maxTxOctets,
                    maxTxTime: change.maxTxTime,
                    maxRxOctets: change.maxRxOctets,
                    maxRxTime: change.maxRxTime
                )
            }
            connection(change.connectionHandle)?.report(
                .dataLengthChanged(
                    maxTxOctets: change.maxTxOctets,
                    maxTxTime: change.maxTxTime,
                    maxRxOctets: change.maxRxOctets,
                    maxRxTime: change.maxRxTime
                )
            )
        case .lePHYUpdateComplete(let update):
            if update.status == .success {
                connection(update.connectionHandle)?.state.withLock { state in
                    state.phy = LinkPHYState(tx: update.txPHY, rx: update.rxPHY)
                }
            }
            connection(update.connectionHandle)?.report(
                .phyUpdated(status: update.status, tx: update.txPHY, rx: update.rxPHY)
            )
        case .encryptionChange(let change):
            connection(change.connectionHandle)?.encryptionChanged(
                status: change.status,
                enabled: change.encryptionEnabled != 0
            )
        case .encryptionKeyRefreshComplete(let refresh):
            connection(refresh.connectionHandle)?.encryptionChanged(status: refresh.status, enabled: true)
        case .numberOfCompletedPackets, .leReadRemoteFeaturesComplete:
            break
        }
    }

    func connection(_ handle: UInt16) -> HCIConnection? { state.withLock { $0.connections[handle] } }

    private func ignoreEvent() { state.withLock { $0.statistics.ignoredEvents += 1 } }

    /// Disconnection Complete: credits of the handle come back, its waiting frames are dropped, the
    /// link's ATT channel fails every pending request.
    private func disconnected(handle: UInt16, reason: UInt8) {
        let link: HCIConnection? = state.withLock { state in
            state.flow.remove(handle)
            let link = state.connections.removeValue(forKey: handle)
            drainACL(&state)
            return link
        }
        link?.didDisconnect(.reason(reason))
    }
}
