public import BLEHost
public import BLEWire
internal import CBlueZ
internal import Glibc

/// The kernel's L2CAP LE socket on the ATT fixed channel (CID 4) to one peer: the kernel creates the LE
/// connection, does ACL and L2CAP, and gives one whole ATT PDU per read.
///
/// Only one ATT socket may exist per LE link: if bluetoothd already attached its GATT client to the
/// link, `connect` fails with `EBUSY`, reported as `BLELinuxError.Kind.busy` with what to do.
public final class L2CAPATTSocket: ATTTransport {
    /// The device at the other end, with the address type it was connected with.
    public let peer: BluetoothAddress
    /// The HCI connection handle (`L2CAP_CONNINFO`), for raw HCI commands on this link.
    public let connectionHandle: UInt16
    /// The channel's receive MTU (`BT_RCVMTU`, or the kernel's fixed-channel default of 672).
    public let maximumPDULength: Int

    /// The kernel may open this channel on a link that is already up: one bluetoothd connected, whose
    /// GATT client agreed a larger ATT_MTU with the peer, and left to the kernel's idle timeout. (While
    /// this channel is open, the kernel gives the link's ATT to no one else: bluetoothd's GATT client
    /// does not attach, and its own connect fails with EBUSY.)
    public var sharesLink: Bool { true }
    let channel: DescriptorChannel

    /// Connects to `peer` through `adapter` (nil: the kernel picks the route), asking for `security`
    /// before data flows (nil: leave the kernel's default). Cancelling the task cancels the connect.
    public static func connect(
        to peer: BluetoothAddress,
        adapter: HCIAdapterName? = nil,
        security: L2CAPSecurityLevel? = nil,
        timeout: Duration = .seconds(20)
    ) async throws(BLELinuxError) -> L2CAPATTSocket {
        let source = try adapter.map { name throws(BLELinuxError) in try HCIAdapters.resolve(name).address }
        let canceller: ConnectCanceller
        do throws(SystemError) {
            canceller = try ConnectCanceller()
        } catch {
            throw BLELinuxError(error, subject: peer.description)
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<L2CAPATTSocket, BLELinuxError>, Never>) in
                do throws(SystemError) {
                    try ThreadSpawner.spawn(name: "l2cap-connect") {
                        continuation.resume(
                            returning: Result { () throws(BLELinuxError) in
                                try connect(
                                    to: peer,
                                    source: source,
                                    security: security,
                                    timeout: timeout,
                                    canceller: canceller
                                )
                            }
                        )
                    }
                } catch {
                    continuation.resume(returning: .failure(BLELinuxError(error, subject: peer.description)))
                }
            }
        } onCancel: {
            canceller.cancel()
        }
        return try result.get()
    }

    /// The blocking connect, on the calling thread: socket, bind, `BT_SECURITY`, non-blocking connect,
    /// poll for completion (or `canceller`, or `timeout`), `SO_ERROR`, `L2CAP_CONNINFO`, `BT_RCVMTU`.
    static func connect(
        to peer: BluetoothAddress,
        source: BluetoothAddress?,
        security: L2CAPSecurityLevel?,
        timeout: Duration,
        canceller: ConnectCanceller?
    ) throws(BLELinuxError) -> L2CAPATTSocket {
        let subject = "\(peer) (\(peer.type == .public || peer.type == .publicIdentity ? "public" : "random"))"
        let outcome: ConnectOutcome
        do throws(SystemError) {
            outcome = try attempt(
                peer: peer,
                source: source,
                security: security,
                timeout: timeout,
                canceller: canceller
            )
        } catch {
            throw BLELinuxError(error, subject: subject)
        }
        switch outcome {
        case .connected(let socket):
            return socket
        case .cancelled:
            throw BLELinuxError(.cancelled, "connect to \(subject) cancelled")
        case .timedOut:
            throw BLELinuxError(
                .timedOut,
                "\(subject) did not connect within \(timeout) (is it advertising and connectable?)"
            )
        }
    }

    private enum ConnectOutcome {
        case connected(L2CAPATTSocket)
        case cancelled
        case timedOut
    }

    private static func attempt(
        peer: BluetoothAddress,
        source: BluetoothAddress?,
        security: L2CAPSecurityLevel?,
        timeout: Duration,
        canceller: ConnectCanceller?
    ) throws(SystemError) -> ConnectOutcome {
        let socket = try OwnedDescriptor.socket(
            domain: AF_BLUETOOTH,
            type: CInt(SOCK_SEQPACKET.rawValue) | CInt(SOCK_NONBLOCK.rawValue),
            protocol: BTPROTO_L2CAP
        )
        try socket.bind(L2CAPAddress.att(source ?? BluetoothAddress(value: 0, type: .public)))
        if let security {
            var value = bt_security()
            value.level = security.rawValue
            try socket.setOption(level: SOL_BLUETOOTH, name: BT_SECURITY, value)
        }
        var destination = L2CAPAddress.att(peer)
        let started = try withUnsafeBytes(of: &destination) { bytes throws(SystemError) in try socket.connect(to: bytes)
        }
        if case .wouldBlock = started {
            let cancel = canceller?.descriptor
            switch try Poll.wait(fd: socket.rawValue, events: Int16(POLLOUT), cancel: cancel, timeout: timeout) {
            case .cancelled: return .cancelled
            case .timedOut: return .timedOut
            case .ready:
                let (code, _) = try socket.option(level: SOL_SOCKET, name: SO_ERROR, initial: CInt(0))
                if code != 0 { throw SystemError(syscall: .connect, errno: code) }
            }
        }
        let (info, _) = try socket.option(level: SOL_L2CAP, name: L2CAP_CONNINFO, initial: l2cap_conninfo())
        let mtu: Int
        do throws(SystemError) {
            let (value, _) = try socket.option(level: SOL_BLUETOOTH, name: BT_RCVMTU, initial: UInt16(0))
            mtu = value == 0 ? L2CAPAddress.defaultMTU : Int(value)
        } catch  where [EINVAL, ENOPROTOOPT, EPROTONOSUPPORT, EOPNOTSUPP].contains(error.errno) {
            // Kernels without BT_RCVMTU on this channel: the fixed channel keeps the default MTU.
            mtu = L2CAPAddress.defaultMTU
        }
        let name = "att-\(peer.description.suffix(5))"
        let channel = try DescriptorChannel(
            socket: socket,
            name: name,
            receiveCapacity: max(mtu, 517),
            reads: .blocking
        )
        return .connected(
            L2CAPATTSocket(peer: peer, connectionHandle: info.hci_handle, maximumPDULength: mtu, channel: channel)
        )
    }

    private init(peer: BluetoothAddress, connectionHandle: UInt16, maximumPDULength: Int, channel: DescriptorChannel) {
        self.peer = peer
        self.connectionHandle = connectionHandle
        self.maximumPDULength = maximumPDULength
        self.channel = channel
    }

    /// Sends one ATT PDU as one datagram; the kernel adds the L2CAP header. Safe from any thread: a sender
    /// other than the reader thread waits (up to 10 s) for room; the reader's own sends are queued.
    ///
    /// - Throws: `.pduTooLarge` when `pdu` is longer than `maximumPDULength`; `.closed` once the socket is
    ///   closed (by `close()`, or by the reader when the link ended); `.disconnected` when the write finds the
    ///   link gone.
    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        try channel.sendPDU(pdu, limit: maximumPDULength)
    }

    /// Starts the reader thread: `receive` gets each ATT PDU (one per read) in order on that thread; `closed`
    /// runs once, after the last. Throws `.closed` when delivery has started already or the socket is closed.
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try channel.startPDUs(receive: receive, closed: closed)
    }

    /// Closes the socket. Once delivery has started it also waits, unless called on the reader thread, until
    /// `closed` has run. Idempotent.
    public func close() { channel.close() }

    deinit { channel.close() }
}

extension L2CAPATTSocket {
    /// The local adapter's address this link runs from (`getsockname`: `l2_bdaddr` of the bound side,
    /// which the kernel fills in with the adapter it routed the connection through).
    public func sourceAddress() throws(TransportError) -> BluetoothAddress {
        let address = try channel.withSocket { (socket) throws(SystemError) in
            try socket.localAddress(initial: sockaddr_l2())
        }
        let wire = withUnsafeBytes(of: address.l2_bdaddr) { Array($0) }
        return BluetoothAddress(wireBytes: wire, type: .public)
    }
}
