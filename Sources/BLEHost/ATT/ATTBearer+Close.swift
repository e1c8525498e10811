extension ATTBearer {
    /// Fails the in-flight request or indication once its 30 s have passed, and closes the bearer.
    func checkDeadlines() {
        let now = clock.now
        let expired: UInt8? = state.withLock { state in
            guard state.closeReason == nil else { return nil }
            if let request = state.requests.inFlight, now >= state.requests.deadline { return request.opcode }
            if let indication = state.indications.inFlight, now >= state.indications.deadline {
                return indication.opcode
            }
            return nil
        }
        if let expired { close(with: .transactionTimeout(request: expired), closeTransport: true) }
    }

    /// Closes once: records the reason, fails everything pending or queued with it, tells the close
    /// handlers, and closes the transport unless it is the one that reported the end.
    func close(with reason: GATTError, closeTransport: Bool) {
        let taken = state.withLock {
            state -> (operations: [Outgoing], handlers: [@Sendable (GATTError) -> Void], ticker: (any ATTClockTicker)?)?
            in
            guard state.closeReason == nil else { return nil }
            state.closeReason = reason
            let operations = state.requests.drain() + state.indications.drain()
            let handlers = state.closeHandlers
            state.closeHandlers = []
            let ticker = state.ticker
            state.ticker = nil
            // Drop the handlers: they may hold the client or server that holds this bearer.
            state.handlers.request = nil
            state.handlers.notification = nil
            return (operations, handlers, ticker)
        }
        guard let taken else { return }
        taken.ticker?.cancel()
        for operation in taken.operations { operation.completion.resume(returning: .failure(reason)) }
        for handler in taken.handlers { handler(reason) }
        if closeTransport { transport.close() }
    }
}
