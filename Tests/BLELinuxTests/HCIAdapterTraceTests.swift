import BLETesting
import BLEWire
import Glibc
import Testing

@testable import BLELinux

@Suite struct HCIAdapterTraceTests {
    static let controlFD = 905

    /// `hci_dev_info` bytes for adapter `index`: dev_id at 0, name at 2, bdaddr at 10, flags at 16.
    static func deviceInfo(index: UInt16, address: [UInt8], up: Bool) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: CLayout.hciDeviceInfoSize)
        bytes.replaceSubrange(0..<2, with: le(index))
        bytes.replaceSubrange(2..<6, with: Array("hci\(index)".utf8))
        bytes.replaceSubrange(10..<16, with: address)
        bytes.replaceSubrange(16..<20, with: le(UInt32(up ? 0x1 | 0x4 : 0)))  // HCI_UP | HCI_RUNNING
        return bytes
    }

    /// A kernel with adapters `hci0` (down) and `hci1` (up, 00:11:22:33:44:55), or the given errno on
    /// `failing`.
    static func kernel(failing: Syscall? = nil, errno code: Int32 = 0) -> @Sendable (MockCall) -> MockReply {
        { call in
            if call.syscall == failing { return .failure(code) }
            switch call.syscall {
            case .socket: return MockReply(result: controlFD)
            case .ioctl where call.arguments[1] == CLayout.ioctlGetDeviceList:
                // dev_num 2, then { dev_id, dev_opt } for 0 and 1.
                return MockReply(
                    output: le(UInt16(2)) + [0, 0] + le(UInt16(0)) + [0, 0] + le(UInt32(0)) + le(UInt16(1)) + [0, 0]
                        + le(UInt32(0))
                )
            case .ioctl where call.arguments[1] == CLayout.ioctlGetDeviceInfo:
                let index = UInt16(call.bytes[0]) | UInt16(call.bytes[1]) << 8
                switch index {
                case 0: return MockReply(output: deviceInfo(index: 0, address: [0, 0, 0, 0, 0, 0], up: false))
                case 1:
                    return MockReply(
                        output: deviceInfo(index: 1, address: [0x55, 0x44, 0x33, 0x22, 0x11, 0x00], up: true)
                    )
                default: return .failure(ENODEV)
                }
            default: return MockReply()
            }
        }
    }

    @Test func listAsksForTheListThenEachAdapter() throws {
        try MockingDriver.withMocking(Self.kernel()) { driver in
            let adapters = try HCIAdapters.list()
            #expect(adapters.map(\.name.index) == [0, 1])
            #expect(adapters.map(\.isUp) == [false, true])
            #expect(adapters[1].address.description == "00:11:22:33:44:55")
            #expect(adapters[1].description == "hci1  00:11:22:33:44:55  up")
            let trace = driver.trace
            #expect(trace.map(\.syscall) == [.socket, .ioctl, .ioctl, .ioctl, .close])
            #expect(trace[0].arguments == [31, CLayout.socketRaw | CLayout.socketCloseOnExec, 1])
            #expect(trace[1].arguments == [Self.controlFD, CLayout.ioctlGetDeviceList])
            #expect(Array(trace[1].bytes.prefix(2)) == le(UInt16(16)), "asks for up to HCI_MAX_DEV adapters")
            #expect(Array(trace[2].bytes.prefix(2)) == le(UInt16(0)))
            #expect(Array(trace[3].bytes.prefix(2)) == le(UInt16(1)))
        }
    }

    @Test func firstAdapterThatIsUpIsChosen() throws {
        let chosen = try MockingDriver.withMocking(Self.kernel()) { _ in try HCIAdapters.resolve(nil) }
        #expect(chosen.name == HCIAdapterName(index: 1))
    }

    @Test func namedAdapterThatIsDownIsRefused() {
        MockingDriver.withMocking(Self.kernel()) { _ in
            let error = failure { () throws(BLELinuxError) in try HCIAdapters.resolve(HCIAdapterName(index: 0)) }
            #expect(error?.kind == .adapterDown)
            #expect(error?.message.contains("hci0") == true)
        }
    }

    @Test func userChannelRefusesAnAdapterThatIsUp() {
        MockingDriver.withMocking(Self.kernel()) { _ in
            let error = failure { () throws(BLELinuxError) in
                try HCIAdapters.resolve(HCIAdapterName(index: 1), requireUp: false, requireDown: true)
            }
            #expect(error?.kind == .adapterUp)
            #expect(error?.message.contains("hciconfig hci1 down") == true)
        }
    }

    @Test func unknownAdapterIsNoAdapter() {
        MockingDriver.withMocking(Self.kernel()) { _ in
            let error = failure { () throws(BLELinuxError) in try HCIAdapters.resolve(HCIAdapterName(index: 7)) }
            #expect(error?.kind == .noAdapter)
            #expect(error?.message.contains("hci7") == true)
        }
    }

    @Test func rawSocketIsBoundWithAnEventFilter() throws {
        try MockingDriver.withMocking(Self.kernel()) { driver in
            do { _ = try HCISocket.openDescriptor(3) }
            let trace = driver.trace
            #expect(trace.map(\.syscall) == [.socket, .bind, .setsockopt, .close])
            guard trace.count == 4 else { return }
            #expect(
                trace[0].arguments == [31, CLayout.socketRaw | CLayout.socketNonBlock | CLayout.socketCloseOnExec, 1]
            )
            // sockaddr_hci { AF_BLUETOOTH, dev 3, HCI_CHANNEL_RAW }
            #expect(trace[1].bytes == [31, 0, 3, 0, 0, 0])
            // hci_filter at SOL_HCI: type_mask = event packets; event_mask bits 0x05, 0x08, 0x0E, 0x0F,
            // 0x3E; opcode 0.
            #expect(trace[2].arguments == [Self.controlFD, 0, 2])
            #expect(
                Array(trace[2].bytes.prefix(14)) == le(UInt32(1 << 4)) + le(UInt32(0xC120)) + le(UInt32(1 << 30)) + [
                    0, 0,
                ]
            )
        }
    }
}
