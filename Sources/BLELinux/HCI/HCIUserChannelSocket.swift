public import BLEHost
public import BLEWire
internal import CBlueZ
internal import Glibc

/// An adapter driven directly over `HCI_CHANNEL_USER`: the kernel hands the controller to this program
/// (no kernel host stack, no bluetoothd on it) and passes whole HCI packets both ways. The adapter must
/// be down when the channel is bound, and the kernel needs `CAP_NET_ADMIN`.
public final class HCIUserChannelSocket: HCITransport {
    public let adapter: HCIAdapterInfo
    private let link: PacketLink

    /// The largest packet the channel can carry: an indicator, an ACL header and 65535 bytes.
    static let receiveCapacity = 1 + 4 + 0xFFFF

    public static func open(_ name: HCIAdapterName) throws(BLELinuxError) -> HCIUserChannelSocket {
        let adapter = try HCIAdapters.resolve(name, requireUp: false, requireDown: true)
        do throws(SystemError) {
            let socket = try openDescriptor(name.index)
            let link = try PacketLink(socket: socket, name: "user-\(name)", receiveCapacity: receiveCapacity)
            return HCIUserChannelSocket(adapter: adapter, link: link)
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

    init(adapter: HCIAdapterInfo, link: PacketLink) {
        self.adapter = adapter
        self.link = link
    }

    public func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        try link.send(prefix: type.rawValue, packet)
    }

    public func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try link.start(deliver: { IndicatedPacket.deliver($0, to: receive) }, closed: closed)
    }

    public func close() { link.close() }

    deinit { link.close() }
}
