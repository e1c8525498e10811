import BLEHost
internal import CBlueZ
internal import Glibc

/// The kernel's Bluetooth management interface (`HCI_CHANNEL_CONTROL`, BlueZ's doc/mgmt-api.txt), the
/// channel bluetoothd uses to answer the kernel's pairing questions. Commands are
/// `| opcode (2) | controller index (2) | length (2) | parameters |`, events the same with an event code;
/// every datagram is one of them. Needs `CAP_NET_ADMIN`.
final class ManagementChannel: Sendable {
    let channel: DescriptorChannel

    private init(channel: DescriptorChannel) { self.channel = channel }

    static func open() throws(SystemError) -> ManagementChannel {
        let socket = try OwnedDescriptor.socket(
            domain: AF_BLUETOOTH,
            type: CInt(SOCK_RAW.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue),
            protocol: BTPROTO_HCI
        )
        var address = sockaddr_hci()
        address.hci_family = sa_family_t(AF_BLUETOOTH)
        address.hci_dev = UInt16(HCI_DEV_NONE)
        address.hci_channel = UInt16(HCI_CHANNEL_CONTROL)
        try socket.bind(address)
        return ManagementChannel(channel: try DescriptorChannel(socket: socket, name: "mgmt", receiveCapacity: 1024))
    }

    /// Delivers every event (code, controller index, parameters) on the channel's reader thread.
    func start(
        events: @escaping @Sendable (_ code: UInt16, _ index: UInt16, _ parameters: UnsafeRawBufferPointer) -> Void
    ) throws(TransportError) {
        try channel.start(
            deliver: { bytes in
                guard bytes.count >= 6 else { return nil }
                let code = UInt16(bytes[0]) | UInt16(bytes[1]) << 8
                let index = UInt16(bytes[2]) | UInt16(bytes[3]) << 8
                let length = Int(UInt16(bytes[4]) | UInt16(bytes[5]) << 8)
                guard bytes.count >= 6 + length else { return nil }
                events(code, index, UnsafeRawBufferPointer(rebasing: bytes[6..<6 + length]))
                return nil
            },
            closed: { _ in }
        )
    }

    /// Sends one command to controller `index`.
    func send(_ opcode: UInt16, index: UInt16, _ parameters: [UInt8]) throws(TransportError) {
        var packet: [UInt8] = []
        packet.reserveCapacity(6 + parameters.count)
        for word in [opcode, index, UInt16(parameters.count)] {
            packet.append(UInt8(truncatingIfNeeded: word))
            packet.append(UInt8(truncatingIfNeeded: word >> 8))
        }
        packet += parameters
        try packet.withTypedBytes { (bytes) throws(TransportError) in try channel.send(bytes) }
    }

    func close() { channel.close() }
}
