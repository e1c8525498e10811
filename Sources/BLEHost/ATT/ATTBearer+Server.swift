import BLEWire

extension ATTBearer {
    /// Sends a Handle Value Notification (server role). A value longer than ATT_MTU − 3 is cut to fit,
    /// as Core 5.4 Vol 3 Part F §3.4.7.1 allows. Builds the PDU on the stack: no allocation.
    public func notify(handle: UInt16, value: UnsafeRawBufferPointer) throws(GATTError) {
        let mtu = try openMTU()
        let length = min(value.count, mtu - 3)
        let failure: TransportError? = withUnsafeTemporaryAllocation(
            byteCount: 3 + length,
            alignment: 1
        ) { pdu in
            pdu[0] = ATTHandleValueNotification.opcode
            pdu[1] = UInt8(truncatingIfNeeded: handle)
            pdu[2] = UInt8(truncatingIfNeeded: handle >> 8)
            if length > 0 {
                UnsafeMutableRawBufferPointer(rebasing: pdu[3...]).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: value[0..<length])
                )
            }
            do throws(TransportError) {
                try transport.send(UnsafeRawBufferPointer(pdu))
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw .send(failure) }
    }

    /// Sends a notification whose value is in an array.
    public func notify(handle: UInt16, value: [UInt8]) throws(GATTError) {
        let result: Result<Void, GATTError> = value.withUnsafeBytes { bytes in
            do throws(GATTError) {
                try notify(handle: handle, value: bytes)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Sends a Handle Value Indication (server role) and waits for the client's confirmation; one
    /// indication is outstanding at a time, later ones wait. The value is cut to ATT_MTU − 3.
    /// Cancelling the caller throws `GATTError.cancelled` at once.
    public func indicate(handle: UInt16, value: [UInt8]) async throws(GATTError) {
        let mtu = self.mtu
        let pdu = ATTHandleValueIndication(handle: handle, value: Array(value.prefix(mtu - 3))).encodedBytes
        _ = try await transact(pdu, indication: true).get()
    }

    /// Answers an Exchange MTU Request (server role) and adopts the agreed MTU.
    func answerExchangeMTU(_ pdu: UnsafeRawBufferPointer) {
        let request: ATTExchangeMTURequest
        do throws(DecodeError) {
            request = try ATTExchangeMTURequest(bytes: pdu)
        } catch {
            sendError(.invalidPDU, request: ATTExchangeMTURequest.opcode, handle: 0)
            return
        }
        let clientMTU = Int(request.clientRxMTU)
        let serverMTU = state.withLock { state in
            state.mtu = max(ATTBearer.defaultMTU, min(clientMTU, state.preferredMTU))
            return state.preferredMTU
        }
        try? transport.send(ATTExchangeMTUResponse(serverRxMTU: UInt16(truncatingIfNeeded: serverMTU)).encodedBytes)
    }

    /// Sends an Error Response (server role).
    func sendError(_ code: ATTErrorCode, request: UInt8, handle: UInt16) {
        try? transport.send(ATTErrorResponse(requestOpcode: request, handle: handle, error: code).encodedBytes)
    }
}
