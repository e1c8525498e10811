public import BLEHost
public import BLEWire
internal import CBlueZ
internal import Glibc

/// An adapter driven directly over `HCI_CHANNEL_USER`: the kernel hands the controller to this program
/// (no kernel host stack, no bluetoothd on it) and passes whole HCI packets both ways. The adapter must
/// be down when the channel is bound, and the kernel needs `CAP_NET_ADMIN`.
public final class HCIUserChannelSocket: HCITransport {
    /// The adapter taken over, as it was when opened (down).
    public let adapter: HCIAdapterInfo
    private let channel: DescriptorChannel

    /// The largest packet the channel can carry: an indicator, an ACL header and 65535 bytes.
    static let receiveCapacity = 1 + 4 + 0xFFFF

    /// Takes over adapter `name`, which must exist and be down. Nothing is read before
    /// `start(receive:closed:)`.
    ///
    /// - Throws: `BLELinuxError`: `.adapterUp` when the adapter is up or another program holds its user
    ///   channel (`EBUSY`); `.noAdapter`, `.noPermission` or another kind when the kernel refuses.
    public static func open(_ name: HCIAdapterName) throws(BLELinuxError) -> HCIUserChannelSocket {
        let adapter = try HCIAdapters.resolve(name, requireUp: false, requireDown: true)
        do throws(SystemError) {
            let socket = try openDescriptor(name.index)
            let channel = try DescriptorChannel(socket: socket, name: "user-\(name)", receiveCapacity: receiveCapacity)
            return HCIUserChannelSocket(adapter: adapter, channel: channel)
        } catch  where error.errno == EBUSY {
            throw BLELinuxError(
                .adapterUp,
                "\(name) cannot be taken over (bind: EBUSY): it is up or another program holds its user channel; run 'hciconfig \(name) down' and stop bluetoothd from powering it (systemctl stop bluetooth)",
                underlying: error
            )
        } catch {
            throw BLELinuxError(error, subject: name.description)
        }
    }

    /// The socket bound to `index` on the user channel. Non-blocking.
    static func openDescriptor(_ index: UInt16) throws(SystemError) -> OwnedDescriptor {
        let socket = try OwnedDescriptor.socket(
            domain: AF_BLUETOOTH,
            type: CInt(SOCK_RAW.rawValue) | CInt(SOCK_NONBLOCK.rawValue),
            protocol: BTPROTO_HCI
        )
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = index
        address.hci_channel = UInt16(HCI_CHANNEL_USER)
        try socket.bind(address)
        return socket
    }

    init(adapter: HCIAdapterInfo, channel: DescriptorChannel) {
        self.adapter = adapter
        self.channel = channel
    }

    /// Sends one HCI packet, its indicator byte in front, as one datagram. Safe from any thread: what the
    /// socket cannot take at once is queued, and a sender other than the reader thread waits (up to 10 s)
    /// while the queue is full. Throws `.closed` once the socket is closed.
    public func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        try channel.send(prefix: type.rawValue, packet)
    }

    /// Starts the reader thread: `receive` gets every packet, split from its indicator byte, in order on that
    /// thread; `closed` runs once, after the last. A packet with an unknown indicator ends delivery with
    /// `.framing`. Throws `.closed` when delivery has started already or the socket is closed.
    public func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try channel.start(deliver: { IndicatedPacket.deliver($0, to: receive) }, closed: closed)
    }

    /// Closes the socket. Once delivery has started it also waits, unless called on the reader thread, until
    /// `closed` has run. Idempotent.
    public func close() { channel.close() }

    deinit { channel.close() }
}
