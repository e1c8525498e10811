public import BLEHost
public import BLEWire

/// Link tuning on the kernel path: the kernel owns the LE link, so the commands go through a raw HCI
/// socket on the adapter that carries it, about the L2CAP socket's connection handle; their results come
/// back as LE Meta events through the socket's filter. Use with `LinkTuner().apply(_:to:)`.
///
/// The kernel keeps issuing its own commands on the link (it answers the peer's parameter requests, for
/// one); only events for this handle and the awaited subevent are taken as results.
public final class KernelLinkTuning: LinkTuningTarget {
    /// The raw HCI socket on the adapter that carries the link.
    public let hci: HCISocket
    /// The kernel link's HCI connection handle (`L2CAPATTSocket.connectionHandle`).
    public let connectionHandle: UInt16
    /// Bound on each Command Status / Command Complete.
    public let commandTimeout: Duration

    /// Tuning of the link `connectionHandle` through `hci`; `commandTimeout` bounds each command's answer.
    /// Every wait, for an answer or for an event, is measured on `hci`'s clock.
    public init(hci: HCISocket, connectionHandle: UInt16, commandTimeout: Duration = .seconds(2)) {
        self.hci = hci
        self.connectionHandle = connectionHandle
        self.commandTimeout = commandTimeout
    }

    /// A raw HCI socket on `adapter`, or, when nil, on the adapter whose address is the link's source
    /// address (`getsockname`).
    public static func open(
        for socket: L2CAPATTSocket,
        adapter: HCIAdapterName?,
        commandTimeout: Duration = .seconds(2)
    ) throws(BLELinuxError) -> KernelLinkTuning {
        let name: HCIAdapterName
        if let adapter { name = adapter } else { name = try carrier(of: socket) }
        return KernelLinkTuning(
            hci: try HCISocket.open(name),
            connectionHandle: socket.connectionHandle,
            commandTimeout: commandTimeout
        )
    }

    /// The adapter whose BD_ADDR is the socket's source address.
    static func carrier(of socket: L2CAPATTSocket) throws(BLELinuxError) -> HCIAdapterName {
        let source: BluetoothAddress
        do throws(TransportError) {
            source = try socket.sourceAddress()
        } catch {
            throw BLELinuxError(.system, "cannot read the L2CAP socket's source address: \(error)")
        }
        let adapters = try HCIAdapters.list()
        guard let adapter = adapters.first(where: { $0.address.value == source.value }) else {
            let known = adapters.map { "\($0.name) \($0.address)" }.joined(separator: ", ")
            throw BLELinuxError(
                .noAdapter,
                "no adapter has the link's source address \(source) (adapters: \(known.isEmpty ? "none" : known))"
            )
        }
        return adapter.name
    }

    /// Sends `command` on the raw socket and, when `subevent` is given and the command succeeded, waits up to
    /// `eventTimeout` for that LE Meta subevent about `connectionHandle` (see `LinkTuningTarget`).
    ///
    /// - Returns: The command's answer, and the whole event (code, length, parameters), nil when it did not
    ///   come.
    /// - Throws: `LinkTuningFailure.noAnswer` when the command got no answer within `commandTimeout`; `.gone`
    ///   for any other failure of the socket or the command (closed, cancelled, the opcode already waiting).
    public func exchange<Command: HCICommandPacket>(
        _ command: Command,
        awaiting subevent: UInt8?,
        eventTimeout: Duration
    ) async throws(LinkTuningFailure) -> (answer: HCICommandResult, event: [UInt8]?) {
        let encoded = command.encodedBytes
        let waiter = subevent.map { LinkEventWaiter(subevent: $0, handle: connectionHandle) }
        // Subscribed before the command goes out, so the event cannot slip past.
        let forwarding = waiter.map { waiter in
            let events = hci.events()
            return Task {
                for await event in events {
                    let packet = [event.code, UInt8(truncatingIfNeeded: event.parameters.count)] + event.parameters
                    if packet.withUnsafeBytes({ waiter.offer($0) }) { return }
                }
                waiter.finish()  // the socket closed
            }
        }
        defer {
            forwarding?.cancel()
            waiter?.finish()
        }
        let answer: HCICommandResult
        do throws(HCICommandError) {
            answer = try await hci.command(
                opcode: Command.opcode,
                parameters: Array(encoded.dropFirst(3)),
                timeout: commandTimeout
            )
        } catch {
            switch error {
            case .timedOut(let opcode): throw .noAnswer(opcode: opcode, waited: commandTimeout)
            default: throw .gone("\(hci.adapter.name): \(error)")
            }
        }
        guard let waiter, answer.hciStatus == .success else { return (answer, nil) }
        return (answer, await waiter.wait(timeout: eventTimeout, clock: hci.clock))
    }

    /// Closes the raw socket.
    public func close() { hci.close() }
}
