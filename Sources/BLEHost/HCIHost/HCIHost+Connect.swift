public import BLEWire

extension HCIHost {
    /// Connects to `peer` as central: LE Extended Create Connection when the controller has it, LE
    /// Create Connection otherwise. Scanning is stopped first. After `timeout` (or when the calling
    /// task is cancelled) the attempt is withdrawn with LE Create Connection Cancel. One attempt runs at
    /// a time; further callers wait their turn.
    public func connect(
        to peer: BluetoothAddress,
        parameters: HCIConnectionParameters? = nil,
        timeout: Duration = .seconds(5)
    ) async throws(HCIHostError) -> HCIConnection {
        guard let controller else { throw .notRunning(state.withLock { $0.closed }) }
        await connectGate.acquire()
        defer { connectGate.release() }
        try await stopScanning()
        let wanted = parameters ?? configuration.connectionParameters
        let own = state.withLock { $0.ownAddressType }
        let peerType: UInt8 = peer.type == .random || peer.type == .randomIdentity ? 1 : 0
        let attempt = state.withLock { state in
            state.connectAttempts += 1
            return state.connectAttempts
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<HCIConnection, HCIHostError>, Never>) in
                state.withLock {
                    $0.pendingConnect = PendingConnect(attempt: attempt, address: peer, continuation: continuation)
                }
                Task {
                    do throws(HCIHostError) {
                        if controller.extendedConnect {
                            try await sendExpectingStatus(
                                HCILEExtendedCreateConnection(
                                    initiatorFilterPolicy: 0,
                                    ownAddressType: own,
                                    peerAddressType: peerType,
                                    peerAddress: peer,
                                    initiatingPHYs: 0x01,
                                    phys: [phyParameters(wanted)]
                                )
                            )
                        } else {
                            let phy = phyParameters(wanted)
                            try await sendExpectingStatus(
                                HCILECreateConnection(
                                    leScanInterval: phy.scanInterval,
                                    leScanWindow: phy.scanWindow,
                                    initiatorFilterPolicy: 0,
                                    peerAddressType: peerType,
                                    peerAddress: peer,
                                    ownAddressType: own,
                                    connectionIntervalMin: wanted.intervalMin,
                                    connectionIntervalMax: wanted.intervalMax,
                                    maxLatency: wanted.latency,
                                    supervisionTimeout: wanted.supervisionTimeout,
                                    minCELength: 0,
                                    maxCELength: 0
                                )
                            )
                        }
                    } catch {
                        finishConnect(attempt, .failure(error))
                        return
                    }
                    // The attempt's timeout is a wake of the host's clock, not a task left sleeping.
                    clock.wake(at: clock.now + timeout) { [weak self] in
                        guard let self else { return }
                        Task { await self.withdrawConnect(attempt, because: .connectTimeout(peer)) }
                    }
                }
            }
        } onCancel: {
            Task { await self.withdrawConnect(attempt, because: .cancelled) }
        }
        return try result.get()
    }

    private func phyParameters(_ wanted: HCIConnectionParameters) -> HCILEExtendedConnectionPHYParameters {
        HCILEExtendedConnectionPHYParameters(
            scanInterval: configuration.scanInterval,
            scanWindow: configuration.scanWindow,
            connectionIntervalMin: wanted.intervalMin,
            connectionIntervalMax: wanted.intervalMax,
            maxLatency: wanted.latency,
            supervisionTimeout: wanted.supervisionTimeout,
            minCELength: 0,
            maxCELength: 0
        )
    }

    /// Cancels a still-pending attempt. The controller answers with a Connection Complete carrying Unknown
    /// Connection Identifier, which ends the wait with `reason`; if that never comes, the wait ends
    /// after one more command timeout anyway.
    private func withdrawConnect(_ attempt: UInt64, because reason: HCIHostError) async {
        let pending = state.withLock { state -> Bool in
            guard state.pendingConnect?.attempt == attempt else { return false }
            state.pendingConnect?.cancelled = reason
            return true
        }
        guard pending else { return }
        do throws(HCIHostError) {
            _ = try await execute(HCILECreateConnectionCancel())
        } catch {
            diagnose("LE Create Connection Cancel: \(error)")
        }
        clock.wake(at: clock.now + configuration.commandTimeout) { [weak self] in
            self?.finishConnect(attempt, .failure(reason))
        }
    }

    /// Ends attempt `attempt` if it is still the pending one (a late timer never touches a later one).
    private func finishConnect(_ attempt: UInt64, _ result: Result<HCIConnection, HCIHostError>) {
        let pending = state.withLock { state -> PendingConnect? in
            guard state.pendingConnect?.attempt == attempt else { return nil }
            defer { state.pendingConnect = nil }
            return state.pendingConnect
        }
        pending?.continuation.resume(returning: result)
    }

    /// (Enhanced) Connection Complete, on the reader thread.
    func connectionComplete(_ event: some HCILEConnectionCompletion) {
        let status = event.status
        let handle = event.connectionHandle
        guard status == .success else {
            let pending = state.withLock { state in
                defer { state.pendingConnect = nil }
                return state.pendingConnect
            }
            guard let pending else { return }
            pending.continuation.resume(
                returning: .failure(pending.cancelled ?? .connectFailed(pending.address, status: status))
            )
            return
        }
        // A completion is taken only for the connect that waits for it, and never replaces a live link:
        // a second completion for a live handle (or one nobody asked for) is reported and ignored.
        let outcome: CompletionOutcome = state.withLock { state in
            if state.connections[handle] != nil {
                state.statistics.ignoredEvents += 1
                return .live
            }
            guard let pending = state.pendingConnect else {
                state.statistics.ignoredEvents += 1
                return .unsolicited
            }
            state.pendingConnect = nil
            let link = HCIConnection(
                host: self,
                handle: handle,
                peer: event.peer,
                role: event.role,
                interval: event.connectionInterval,
                latency: event.peripheralLatency,
                timeout: event.supervisionTimeout
            )
            state.connections[handle] = link
            return .taken(pending, link)
        }
        switch outcome {
        case .taken(let pending, let link): pending.continuation.resume(returning: .success(link))
        case .live: diagnose("LE Connection Complete for live handle 0x\(hex(handle)) ignored: the link is kept")
        case .unsolicited:
            diagnose("LE Connection Complete for handle 0x\(hex(handle)) with no connect pending ignored")
        }
    }
}

/// What became of an LE Connection Complete (see `HCIHost.connectionComplete`).
private enum CompletionOutcome {
    case taken(HCIHost.PendingConnect, HCIConnection)
    case live
    case unsolicited
}
