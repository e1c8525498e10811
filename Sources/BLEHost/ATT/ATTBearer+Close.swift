extension ATTBearer {
    /// Asks the alarm to call `checkDeadlines` by `deadline`. The clock holds the bearer until then (at
    /// most one transaction timeout): a weak reference would give the bearer a side table, and every
    /// retain and release of it on the notification path the runtime's slow path.
    func wakeForTimeout(by deadline: Duration) {
        alarm.wake(by: deadline) { [self] in checkDeadlines() }
    }

    /// On a wake: fails the in-flight request or indication once its 30 s have passed, and closes the
    /// bearer; otherwise asks to be woken at the earliest deadline still in flight.
    func checkDeadlines() {
        let now = alarm.clock.now
        let (expired, next) = state.withLock { state -> (UInt8?, Duration?) in
            guard state.closeReason == nil else { return (nil, nil) }
            var next: Duration?
            for slot in [state.requests, state.indications] {
                guard let operation = slot.inFlight else { continue }
                if now >= slot.deadline { return (operation.opcode, nil) }
                next = min(next ?? slot.deadline, slot.deadline)
            }
            return (nil, next)
        }
        if let expired { close(with: .transactionTimeout(request: expired), closeTransport: true) }
        if let next { wakeForTimeout(by: next) }
    }

    /// Closes once: records the reason, fails everything pending or queued with it, tells the close
    /// handlers, and closes the transport unless it is the one that reported the end.
    func close(with reason: GATTError, closeTransport: Bool) {
        let taken = state.withLock {
            state -> (operations: [Outgoing], handlers: [@Sendable (GATTError) -> Void])? in
            guard state.closeReason == nil else { return nil }
            state.closeReason = reason
            let operations = state.requests.drain() + state.indications.drain()
            let handlers = state.closeHandlers
            state.closeHandlers = []
            // Drop the handlers: they may hold the client or server that holds this bearer.
            state.handlers.request = nil
            state.handlers.notification = nil
            return (operations, handlers)
        }
        guard let taken else { return }
        for operation in taken.operations { operation.completion.value.resume(returning: .failure(reason)) }
        for handler in taken.handlers { handler(reason) }
        if closeTransport { transport.close() }
    }
}
