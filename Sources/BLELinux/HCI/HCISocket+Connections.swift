import BLEHost
public import BLEWire
internal import CBlueZ
internal import Glibc

extension HCISocket {
    /// The kernel's link type of an LE connection (`LE_LINK` in the kernel's `hci.h`; libbluetooth's
    /// header does not name it).
    static let leLinkType: UInt8 = 0x80

    /// The handle of the kernel's LE connection to `peer` on this adapter (`HCIGETCONNINFO`, matched by
    /// address whatever its type), nil when there is none.
    public func leConnectionHandle(to peer: BluetoothAddress) throws(BLELinuxError) -> UInt16? {
        let outcome: Result<UInt16?, SystemError>
        do throws(TransportError) {
            outcome = try channel.withSocket { socket in
                Result { () throws(SystemError) in try Self.leConnectionHandle(on: socket, to: peer) }
            }
        } catch {
            throw BLELinuxError(.system, "\(adapter.name): cannot look up the link to \(peer): \(error)")
        }
        do throws(SystemError) {
            return try outcome.get()
        } catch {
            throw BLELinuxError(error, subject: "\(adapter.name): the link to \(peer)")
        }
    }

    /// `HCIGETCONNINFO` on a raw HCI socket bound to an adapter: the request is the address and the link
    /// type, the kernel writes the connection's `hci_conn_info` after it (`ENOENT`: no such connection).
    static func leConnectionHandle(
        on socket: borrowing OwnedDescriptor,
        to peer: BluetoothAddress
    ) throws(SystemError) -> UInt16? {
        let answerOffset = cbluez_offsetof_hci_conn_info_req_conn_info()
        var request = [UInt8](repeating: 0, count: answerOffset + MemoryLayout<hci_conn_info>.size)
        request.replaceSubrange(0..<6, with: peer.wireBytes)
        request[6] = leLinkType
        let outcome = request.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemError) in try socket.ioctl(cbluez_hcigetconninfo(), buffer: bytes) }
        }
        switch outcome {
        case .success: return UInt16(request[answerOffset]) | UInt16(request[answerOffset + 1]) << 8
        case .failure(let error) where error.errno == ENOENT: return nil
        case .failure(let error): throw error
        }
    }

    /// Ends the kernel's LE connection to `peer` with HCI Disconnect (Remote User Terminated) and waits up
    /// to `timeout` for its Disconnection Complete; false when there was no such connection.
    ///
    /// The kernel ends an idle link itself a few seconds after its last user closes it, and a connection
    /// made meanwhile reuses that link with its encryption. Its own ways to end one (the idle timer, the
    /// management interface's Disconnect) go through its connection state, which can be stale; this
    /// command goes to the controller, and the kernel drops the link when the event comes back.
    public func endConnection(
        to peer: BluetoothAddress,
        timeout: Duration = .seconds(5)
    ) async throws(BLELinuxError) -> Bool {
        guard let handle = try leConnectionHandle(to: peer) else { return false }
        return try await endConnection(handle: handle, describing: "the link to \(peer)", timeout: timeout)
    }

    /// Sends HCI Disconnect for `handle` (named `what` in errors) and waits up to `timeout` for its
    /// Disconnection Complete; false when the controller knows no such connection.
    func endConnection(
        handle: UInt16,
        describing what: String,
        timeout: Duration
    ) async throws(BLELinuxError) -> Bool {
        let events = self.events()
        let ended = Task {
            for await event in events where event.code == HCIDisconnectionCompleteEvent.eventCode {
                let packet = [event.code, UInt8(truncatingIfNeeded: event.parameters.count)] + event.parameters
                guard let complete = try? HCIDisconnectionCompleteEvent(bytes: packet) else { continue }
                if complete.connectionHandle & 0x0FFF == handle { return true }  // the top four bits are flags
            }
            return false
        }
        let answer: HCICommandResult
        do throws(HCICommandError) {
            let reason = HCIStatus.remoteUserTerminatedConnection.rawValue
            // The kernel queues it behind its own commands, which may wait for their events: a long bound.
            answer = try await command(HCIDisconnect(connectionHandle: handle, reason: reason), timeout: .seconds(10))
        } catch {
            ended.cancel()
            throw BLELinuxError(.system, "\(adapter.name): HCI Disconnect of \(what) failed: \(error)")
        }
        guard answer.status == 0 else {
            ended.cancel()
            // Unknown Connection Identifier: it ended between the lookup and the command.
            if answer.hciStatus == .unknownConnectionIdentifier { return false }
            let status = answer.hciStatus.map { "\($0)" } ?? "no status"
            throw BLELinuxError(.refused, "\(adapter.name): the controller refused to end \(what): \(status)")
        }
        // The timeout on the socket's clock (its commands' too); a wake after the end finds nothing left
        // to cancel.
        let clock = alarm.clock
        clock.wake(at: clock.now + timeout) { ended.cancel() }
        guard await withTaskCancellationHandler(operation: { await ended.value }, onCancel: { ended.cancel() }) else {
            throw BLELinuxError(.timedOut, "\(adapter.name): \(what) did not end within \(timeout)")
        }
        return true
    }
}
