import BLEWire

extension ATTBearer {
    /// Sends a request PDU and waits for its response, in turn behind any request already in flight.
    /// Returns the whole response PDU; an Error Response throws `.att(ATTError)`.
    ///
    /// Cancelling the calling task throws `.cancelled` at once. A request still queued is never sent; one
    /// already sent keeps the transaction slot until its response arrives (and is dropped) or the
    /// transaction times out, so a late response is never taken for the next request's.
    public func request(_ pdu: [UInt8]) async throws(GATTError) -> [UInt8] {
        guard let opcode = pdu.first, opcode & ATTBearer.commandFlag == 0 else {
            throw .invalidArgument("not an ATT request PDU")
        }
        return try await transact(pdu, indication: false).get()
    }

    /// Queues `pdu` as a request or an indication and waits for its answer. Cancelling the caller ends
    /// the wait at once with `.cancelled`; one already sent keeps its slot until the answer (or the
    /// transaction timeout), since ATT has no transaction ids.
    func transact(_ pdu: [UInt8], indication: Bool) async -> Result<[UInt8], GATTError> {
        let id = state.withLock { $0.makeID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                submit(pdu, Completion(continuation), id: id, indication: indication)
            }
        } onCancel: {
            cancel(id, indication: indication)
        }
    }

    /// Resumes the caller of operation `id` with `.cancelled` (see `transact`).
    func cancel(_ id: UInt64, indication: Bool) {
        let taken = state.withLock { state in
            indication ? state.indications.cancel(id) : state.requests.cancel(id)
        }
        taken?.completion.value.resume(returning: .failure(.cancelled))
    }

    /// The current ATT_MTU while the bearer is open; the close reason once it is closed. (The reason is
    /// copied only then: the commands and notifications that call this are on the hot path.)
    func openMTU() throws(GATTError) -> Int {
        guard let mtu = state.withLock({ $0.closeReason == nil ? $0.mtu : nil }) else {
            throw closeReason ?? .disconnected(.closed)
        }
        return mtu
    }

    /// Sends a command (such as Write Command) at once: commands need no transaction slot.
    public func sendCommand(_ pdu: UnsafeRawBufferPointer) throws(GATTError) {
        let mtu = try openMTU()
        guard pdu.count <= mtu else { throw .invalidArgument("PDU of \(pdu.count) bytes exceeds ATT_MTU \(mtu)") }
        do { try transport.send(pdu) } catch { throw .send(error) }
    }

    /// Exchanges MTUs (client role): offers `clientMTU` (default: `preferredMTU`), and sets the bearer's
    /// MTU to the smaller of both sides' (never below 23). Returns the new MTU.
    @discardableResult
    public func exchangeMTU(_ clientMTU: Int? = nil) async throws(GATTError) -> Int {
        let offered = min(preferredMTU, max(ATTBearer.defaultMTU, clientMTU ?? preferredMTU))
        let response: ATTExchangeMTUResponse
        let bytes = try await request(ATTExchangeMTURequest(clientRxMTU: UInt16(offered)).encodedBytes)
        do {
            response = try ATTExchangeMTUResponse(bytes: bytes)
        } catch {
            throw .invalidResponse(request: ATTExchangeMTURequest.opcode, error)
        }
        let serverMTU = Int(response.serverRxMTU)
        let agreed = max(ATTBearer.defaultMTU, min(offered, serverMTU))
        state.withLock { $0.mtu = agreed }
        return agreed
    }

    /// Queues an operation on the request or indication slot and sends it if the slot was free.
    /// A task cancelled before its operation is queued gets `.cancelled` here (the check runs under
    /// the lock that `cancel` takes, so a cancellation is seen either here or there).
    func submit(_ pdu: [UInt8], _ completion: Completion, id: UInt64, indication: Bool) {
        let now = alarm.clock.now
        let outcome: Result<Outgoing?, GATTError> = state.withLock { state in
            if let reason = state.closeReason { return .failure(reason) }
            if !state.started { return .failure(.notStarted) }
            if Task.isCancelled { return .failure(.cancelled) }
            if pdu.count > state.mtu {
                return .failure(.invalidArgument("PDU of \(pdu.count) bytes exceeds ATT_MTU \(state.mtu)"))
            }
            let operation = Outgoing(id: id, pdu: pdu, completion: completion)
            let deadline = now + timeout
            return .success(
                indication
                    ? state.indications.enqueue(operation, deadline: deadline)
                    : state.requests.enqueue(operation, deadline: deadline)
            )
        }
        switch outcome {
        case .failure(let error): completion.value.resume(returning: .failure(error))
        case .success(let toSend?):
            wakeForTimeout(by: now + timeout)
            transmit(toSend, indication: indication)
        case .success(nil): break
        }
    }

    /// Sends an operation that just became in flight; a send failure fails it and moves on.
    func transmit(_ first: Outgoing, indication: Bool) {
        var operation = first
        while true {
            do {
                try transport.send(operation.pdu)
                return
            } catch {
                guard let next = finish(operation.id, indication: indication, with: .failure(.send(error))) else {
                    return
                }
                operation = next
            }
        }
    }

    /// Completes the in-flight operation if its id is `id`; returns the next one to send (already in flight).
    func finish(_ id: UInt64, indication: Bool, with result: Result<[UInt8], GATTError>) -> Outgoing? {
        let deadline = alarm.clock.now + timeout
        let (done, next): (Outgoing?, Outgoing?) = state.withLock { state in
            guard state.closeReason == nil else { return (nil, nil) }
            if indication {
                guard state.indications.inFlight?.id == id else { return (nil, nil) }
                return state.indications.advance(deadline: deadline)
            }
            guard state.requests.inFlight?.id == id else { return (nil, nil) }
            return state.requests.advance(deadline: deadline)
        }
        done?.completion.value.resume(returning: result)
        if next != nil { wakeForTimeout(by: deadline) }
        return next
    }
}
