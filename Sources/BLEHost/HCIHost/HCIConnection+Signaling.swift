import BLEWire

extension HCIConnection {
    /// One LE signaling frame (CID 5, one command per frame; Core 5.4 Vol 3 Part A §4). Connection
    /// Parameter Update Requests are answered (accepted within the host's limits, then applied with LE
    /// Connection Update); credit-based connection requests are refused (no LE PSM is served); commands
    /// the host does not know get Command Reject (not understood). Reader thread.
    func receiveSignaling(_ frame: UnsafeRawBufferPointer) {
        guard frame.count >= 4 else { return reject(identifier: 0, reason: 0x0000) }
        let code = frame[0]
        let identifier = frame[1]
        switch code {
        case L2CAPConnectionParameterUpdateRequest.code:
            parameterUpdateRequest(frame, identifier: identifier)
        case L2CAPConnectionParameterUpdateResponse.code, L2CAPCommandReject.code,
            L2CAPDisconnectionResponse.code, L2CAPLECreditBasedConnectionResponse.code:
            break  // answers to requests this host never sends on its own: nothing to do
        case L2CAPDisconnectionRequest.code where frame.count >= 8:
            // No dynamic channel exists here: invalid CID in request, echoing destination and source CID.
            reject(identifier: identifier, reason: 0x0002, data: Array(frame[4..<8]))
        case L2CAPLECreditBasedConnectionRequest.code:
            let refusal = L2CAPLECreditBasedConnectionResponse(
                identifier: identifier,
                destinationCID: 0,
                mtu: 0,
                mps: 0,
                initialCredits: 0,
                result: 0x0002  // LE_PSM not supported
            )
            sendSignaling(refusal.encodedBytes)
        default:
            reject(identifier: identifier, reason: 0x0000)
        }
    }

    private func parameterUpdateRequest(_ frame: UnsafeRawBufferPointer, identifier: UInt8) {
        let request: L2CAPConnectionParameterUpdateRequest
        do throws(DecodeError) {
            var reader = ByteReader(frame)
            request = try L2CAPConnectionParameterUpdateRequest(parsing: &reader)
        } catch {
            return reject(identifier: identifier, reason: 0x0000)
        }
        // Only the central answers this request (§4.20); as a peripheral, the command is not understood.
        guard role == 0 else { return reject(identifier: identifier, reason: 0x0000) }
        let parameters = HCIConnectionParameters(
            intervalMin: request.intervalMin,
            intervalMax: request.intervalMax,
            latency: request.latency,
            supervisionTimeout: request.timeout
        )
        let accepted = host.configuration.acceptedParameters.accepts(parameters)
        sendSignaling(
            L2CAPConnectionParameterUpdateResponse(identifier: identifier, result: accepted ? 0 : 1).encodedBytes
        )
        report(.parameterRequest(parameters, accepted: accepted, viaL2CAP: true))
        if accepted {
            sendNewest(
                on: parameterUpdates,
                HCILEConnectionUpdate(
                    connectionHandle: handle,
                    connectionIntervalMin: parameters.intervalMin,
                    connectionIntervalMax: parameters.intervalMax,
                    maxLatency: parameters.latency,
                    supervisionTimeout: parameters.supervisionTimeout,
                    minCELength: 0,
                    maxCELength: 0
                ),
                what: "LE Connection Update on \(self)"
            )
        } else {
            host.diagnose("rejected connection parameter update request on \(self): \(parameters)")
        }
    }

    private func reject(identifier: UInt8, reason: UInt16, data: [UInt8] = []) {
        host.state.withLock { $0.statistics.rejectedSignaling += 1 }
        sendSignaling(L2CAPCommandReject(identifier: identifier, reason: reason, data: data).encodedBytes)
    }

    private func sendSignaling(_ command: [UInt8]) {
        do throws(TransportError) {
            try command.withTypedBytes { (bytes) throws(TransportError) in
                try host.sendL2CAP(handle: handle, channel: 0x0005, bytes, signalingAnswer: true)
            }
        } catch {
            host.diagnose("signaling answer on \(self) not sent: \(error)")
        }
    }

    /// LE Remote Connection Parameter Request (the link layer's form of the same request): reply with
    /// the requested values when acceptable, otherwise a negative reply (Unacceptable Connection
    /// Parameters). Left unanswered, the peer's procedure times out and the link may drop.
    func remoteParameterRequest(_ event: HCILERemoteConnectionParameterRequestEvent) {
        let parameters = HCIConnectionParameters(
            intervalMin: event.intervalMin,
            intervalMax: event.intervalMax,
            latency: event.maxLatency,
            supervisionTimeout: event.timeout
        )
        let accepted = host.configuration.acceptedParameters.accepts(parameters)
        report(.parameterRequest(parameters, accepted: accepted, viaL2CAP: false))
        if accepted {
            sendNewest(
                on: parameterReplies,
                HCILERemoteConnectionParameterRequestReply(
                    connectionHandle: handle,
                    intervalMin: event.intervalMin,
                    intervalMax: event.intervalMax,
                    maxLatency: event.maxLatency,
                    timeout: event.timeout,
                    minCELength: 0,
                    maxCELength: 0
                ),
                what: "LE Remote Connection Parameter Request Reply on \(self)"
            )
        } else {
            sendNewest(
                on: parameterReplies,
                HCILERemoteConnectionParameterRequestNegativeReply(connectionHandle: handle, reason: 0x3B),
                what: "LE Remote Connection Parameter Request Negative Reply on \(self)"
            )
        }
    }

    /// Sends `command` through `sender` (the newest of its kind only); one superseded is counted.
    private func sendNewest<Command: HCICommandPacket>(
        on sender: NewestCommandSender,
        _ command: Command,
        what: String
    ) {
        let replaced = sender.submit { [weak host] in
            guard let host else { return }
            do throws(HCIHostError) {
                _ = try await host.send(command)
            } catch {
                host.diagnose("\(what) failed: \(error)")
            }
        }
        if replaced { host.state.withLock { $0.statistics.supersededCommands += 1 } }
    }
}
