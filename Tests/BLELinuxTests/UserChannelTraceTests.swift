import BLEHost
import BLETesting
import BLEWire
import Glibc
import Testing

@testable import BLELinux

@Suite struct UserChannelTraceTests {
    static func kernel(adapterUp: Bool, bindErrno: Int32 = 0) -> @Sendable (MockCall) -> MockReply {
        { call in
            switch call.syscall {
            case .socket: return MockReply(result: 906)
            case .ioctl:
                return MockReply(
                    output: HCIAdapterTraceTests.deviceInfo(index: 2, address: [1, 2, 3, 4, 5, 6], up: adapterUp)
                )
            case .bind where bindErrno != 0: return .failure(bindErrno)
            case .epollCreate: return MockReply(result: 908)
            case .eventfd: return MockReply(result: 909)
            default: return MockReply()
            }
        }
    }

    @Test func bindsTheUserChannelOfADownAdapter() throws {
        try MockingDriver.withMocking(Self.kernel(adapterUp: false)) { driver in
            do {
                let socket = try HCIUserChannelSocket.open(HCIAdapterName(index: 2))
                #expect(socket.adapter.address.description == "06:05:04:03:02:01")
            }
            let bind = try #require(driver.trace.first { $0.syscall == .bind })
            // sockaddr_hci { AF_BLUETOOTH, dev 2, HCI_CHANNEL_USER (1) }
            #expect(bind.bytes == [31, 0, 2, 0, 1, 0])
        }
    }

    @Test func adapterThatIsUpIsRefusedBeforeBinding() {
        MockingDriver.withMocking(Self.kernel(adapterUp: true)) { driver in
            let error = failure { () throws(BLELinuxError) in try HCIUserChannelSocket.open(HCIAdapterName(index: 2)) }
            #expect(error?.kind == .adapterUp)
            #expect(!driver.trace.contains { $0.syscall == .bind })
        }
    }

    @Test func busyBindSaysHowToFreeTheAdapter() {
        MockingDriver.withMocking(Self.kernel(adapterUp: false, bindErrno: EBUSY)) { _ in
            let error = failure { () throws(BLELinuxError) in try HCIUserChannelSocket.open(HCIAdapterName(index: 2)) }
            #expect(error?.kind == .adapterUp)
            #expect(error?.message.contains("hciconfig hci2 down") == true)
        }
    }

    @Test func missingCapabilityIsNoPermission() {
        MockingDriver.withMocking(Self.kernel(adapterUp: false, bindErrno: EPERM)) { _ in
            let error = failure { () throws(BLELinuxError) in try HCIUserChannelSocket.open(HCIAdapterName(index: 2)) }
            #expect(error?.kind == .noPermission)
        }
    }

    @Test func userChannelPacketsCarryTheirIndicator() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try DescriptorChannel(
            socket: OwnedDescriptor(rawValue: ours),
            name: "test-user",
            receiveCapacity: 2048
        )
        let adapter = HCIAdapterInfo(
            name: HCIAdapterName(index: 0),
            address: BluetoothAddress(value: 1),
            isUp: false,
            flags: 0
        )
        let socket = HCIUserChannelSocket(adapter: adapter, channel: link)
        let packets = H4StreamTransportTests.Packets()
        try socket.start(receive: packets.received, closed: packets.closed)
        put(theirs, [0x02, 0x40, 0x00, 0x01, 0x00, 0xAA])
        put(theirs, [0x07, 0x00])
        #expect(eventuallyBlocking { !packets.closes.isEmpty })
        #expect(packets.packets == [[0x02, 0x40, 0x00, 0x01, 0x00, 0xAA]])
        #expect(packets.closes == [.framing("HCI socket packet with unknown indicator 0x07")])
        try [UInt8]([0x40, 0x00, 0x00, 0x00]).withTypedBytes { bytes throws(TransportError) in
            do throws(TransportError) { try socket.send(.acl, bytes) } catch { #expect(error == .closed) }
        }
    }
}
