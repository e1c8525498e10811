import BLEWire

extension ATTBearer {
    /// Dispatches one received PDU. Runs on the transport's reader thread.
    func receive(_ pdu: UnsafeRawBufferPointer) {
        guard let opcode = pdu.first else { return drop("empty PDU") }
        switch opcode {
        case ATTHandleValueNotification.opcode:
            // The hot path: a borrowed view, no copy, no allocation.
            guard let notification = try? ATTHandleValueNotification.View(pdu: pdu) else {
                return drop("notification of \(pdu.count) bytes")
            }
            let route = notificationRoute()
            guard pdu.count <= route.limit else { return drop("notification of \(pdu.count) bytes > ATT_MTU") }
            route.handler?(notification.handle, notification.value, false)
        case ATTHandleValueIndication.opcode:
            guard let indication = try? ATTHandleValueIndication.View(pdu: pdu) else {
                return drop("indication of \(pdu.count) bytes")
            }
            let route = notificationRoute()
            guard pdu.count <= route.limit else { return drop("indication of \(pdu.count) bytes > ATT_MTU") }
            route.handler?(indication.handle, indication.value, true)
            try? transport.send(ATTHandleValueConfirmation().encodedBytes)
        case ATTMultipleHandleValueNotification.opcode:
            receiveMultipleNotification(pdu)
        case ATTHandleValueConfirmation.opcode:
            let id = state.withLock { $0.indications.inFlight?.id }
            guard let id, pdu.count == 1 else { return drop("confirmation with no indication outstanding") }
            if let next = finish(id, indication: true, with: .success([])) { transmit(next, indication: true) }
        case ATTExchangeMTURequest.opcode:
            answerExchangeMTU(pdu)
        case _ where ATTOpcode(rawValue: opcode)?.kind == .response:
            receiveResponse(pdu)
        default:
            serve(pdu)
        }
    }

    /// The notification handler and the longest PDU the peer may send, for one PDU.
    private func notificationRoute() -> NotificationRoute {
        state.withLock { NotificationRoute(handler: $0.handlers.notification, limit: $0.receiveLimit) }
    }

    private func handleAt(_ pdu: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        UInt16(pdu[offset]) | UInt16(pdu[offset + 1]) << 8
    }

    /// Completes the pending request with a response or an Error Response that names its opcode.
    private func receiveResponse(_ pdu: UnsafeRawBufferPointer) {
        let opcode = pdu[0]
        let (pending, closed) = state.withLock { state in
            (state.requests.inFlight.map { ($0.id, $0.opcode, state.receiveLimit) }, state.closeReason != nil)
        }
        guard let (id, requestOpcode, mtu) = pending else {
            // Closing the bearer ends the request in flight at once; its response may still be on its
            // way, and is expected, not dropped.
            if closed { return }
            return drop("response 0x\(hex(opcode)) with no request pending")
        }
        let result: Result<[UInt8], GATTError>
        if pdu.count > mtu {
            // Longer than the MTU allows (Core 5.4 Vol 3 Part F §3.2.8): refused, not trusted.
            result = .failure(
                .unexpectedResponse(request: requestOpcode, "response of \(pdu.count) bytes exceeds ATT_MTU \(mtu)")
            )
        } else if opcode == ATTErrorResponse.opcode {
            let refusal: ATTErrorResponse
            do throws(DecodeError) {
                refusal = try ATTErrorResponse(bytes: pdu)
            } catch {
                return drop("Error Response of \(pdu.count) bytes")
            }
            guard refusal.requestOpcode == requestOpcode else {
                return drop(
                    "Error Response for 0x\(hex(refusal.requestOpcode)) while 0x\(hex(requestOpcode)) is pending"
                )
            }
            result = .failure(.att(ATTError(code: refusal.error, handle: refusal.handle, request: requestOpcode)))
        } else {
            guard opcode == requestOpcode &+ 1 else {
                return drop("response 0x\(hex(opcode)) does not answer pending request 0x\(hex(requestOpcode))")
            }
            result = .success(Array(pdu))
        }
        if let next = finish(id, indication: false, with: result) { transmit(next, indication: false) }
    }

    /// Delivers each (handle, length, value) tuple of a Multiple Handle Value Notification.
    private func receiveMultipleNotification(_ pdu: UnsafeRawBufferPointer) {
        let route = notificationRoute()
        guard pdu.count <= route.limit else { return drop("notification of \(pdu.count) bytes > ATT_MTU") }
        var offset = 1
        while offset < pdu.count {
            guard pdu.count - offset >= 4 else { return drop("truncated Multiple Handle Value Notification") }
            let handle = handleAt(pdu, offset)
            let length = Int(handleAt(pdu, offset + 2))
            guard pdu.count - offset - 4 >= length else { return drop("truncated Multiple Handle Value Notification") }
            route.handler?(
                handle,
                UnsafeRawBufferPointer(rebasing: pdu[(offset + 4)..<(offset + 4 + length)]),
                false
            )
            offset += 4 + length
        }
    }

    /// Server role: hands a request or command to the request handler and sends its response.
    private func serve(_ pdu: UnsafeRawBufferPointer) {
        let opcode = pdu[0]
        let route = state.withLock { RequestRoute(handler: $0.handlers.request, mtu: $0.mtu) }
        guard let handler = route.handler else {
            // Commands that are not understood are ignored; requests get Request Not Supported.
            if opcode & ATTBearer.commandFlag == 0 { sendError(.requestNotSupported, request: opcode, handle: 0) }
            return
        }
        scratch.response.reset()
        handler(pdu, route.mtu, &scratch.response)
        guard scratch.response.count > 0 else { return }
        do {
            try scratch.response.withUnsafeBytes { (bytes) throws(TransportError) in try transport.send(bytes) }
        } catch {
            drop("could not send response: \(error)")
        }
    }

    func drop(_ why: String) {
        let diagnostic = state.withLock { state in
            state.dropped += 1
            return state.diagnostic
        }
        diagnostic?("ATT: dropped \(why)")
    }
}
