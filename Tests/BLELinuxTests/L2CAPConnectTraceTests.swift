import BLETesting
import BLEWire
import Glibc
import Testing

@testable import BLELinux

@Suite struct L2CAPConnectTraceTests {
    static let socketFD = 907
    static let peer = BluetoothAddress(value: 0xAABB_CCDD_EEFF, type: .random)

    /// A kernel that accepts the connect after `EINPROGRESS`, reports handle 0x0040 and an MTU of 517,
    /// and fails the connect's `SO_ERROR` with `connectErrno` when it is set.
    static func kernel(
        connectErrno: Int32 = 0,
        immediate: Bool = false,
        mtuErrno: Int32 = 0
    ) -> @Sendable (MockCall) -> MockReply {
        { call in
            switch call.syscall {
            case .socket: return MockReply(result: socketFD)
            case .connect: return immediate ? MockReply() : .failure(EINPROGRESS)
            case .poll:
                // pollfd { fd, events, revents = POLLOUT }
                return MockReply(result: 1, output: le(Int32(socketFD)) + le(Int16(POLLOUT)) + le(Int16(POLLOUT)))
            case .getsockopt:
                switch (call.arguments[1], call.arguments[2]) {
                case (CLayout.levelSocket, CLayout.optionSocketError): return MockReply(output: le(connectErrno))
                case (CLayout.levelL2CAP, CLayout.optionConnectionInfo):
                    return MockReply(output: [0x40, 0x00, 0, 0, 0, 0])
                case (CLayout.levelBluetooth, CLayout.optionReceiveMTU):
                    return mtuErrno == 0 ? MockReply(output: le(UInt16(517))) : .failure(mtuErrno)
                default: return .failure(ENOPROTOOPT)
                }
            case .epollCreate: return MockReply(result: 908)
            case .eventfd: return MockReply(result: 909)
            default: return MockReply()
            }
        }
    }

    static let expectedSocketType = CLayout.socketSeqPacket | CLayout.socketNonBlock | CLayout.socketCloseOnExec

    @Test func connectUsesPSMZeroCIDFourAndTheAddressType() throws {
        try MockingDriver.withMocking(Self.kernel()) { driver in
            do {
                let socket = try L2CAPATTSocket.connect(
                    to: Self.peer,
                    source: nil,
                    security: .medium,
                    timeout: .seconds(5),
                    canceller: nil
                )
                #expect(socket.connectionHandle == 0x0040)
                #expect(socket.maximumPDULength == 517)
            }
            let trace = driver.trace
            let calls = trace.map(\.syscall)
            #expect(
                calls == [
                    .socket, .bind, .setsockopt, .connect, .poll, .getsockopt, .getsockopt, .getsockopt,
                    .fcntl, .fcntl, .epollCreate, .eventfd, .epollControl, .epollControl, .close, .close, .close,
                ]
            )
            guard trace.count == 17 else { return }
            #expect(trace[0].arguments == [CLayout.addressFamily, Self.expectedSocketType, CLayout.protocolL2CAP])
            // bind: AF_BLUETOOTH, psm 0, BDADDR_ANY, cid 4, BDADDR_LE_PUBLIC.
            #expect(trace[1].bytes.count == 14)
            #expect(Array(trace[1].bytes.prefix(13)) == [31, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1])
            // BT_SECURITY { level 2 (medium), key_size 0 } at SOL_BLUETOOTH.
            #expect(trace[2].arguments == [Self.socketFD, 274, 4])
            #expect(trace[2].bytes == [2, 0])
            // connect: AF_BLUETOOTH, psm 0, AA:BB:CC:DD:EE:FF in wire order, cid 4, BDADDR_LE_RANDOM.
            #expect(trace[3].arguments == [Self.socketFD])
            #expect(trace[3].bytes.count == 14)
            #expect(Array(trace[3].bytes.prefix(13)) == [31, 0, 0, 0, 0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 4, 0, 2])
            // poll: the socket for POLLOUT and no canceller, then SO_ERROR, L2CAP_CONNINFO, BT_RCVMTU.
            #expect(Array(trace[4].arguments.prefix(4)) == [Self.socketFD, Int(POLLOUT), -1, Int(POLLIN)])
            #expect(trace[5].arguments == [Self.socketFD, 1, 4, 4])
            #expect(trace[6].arguments == [Self.socketFD, 6, 2, 6])
            #expect(trace[7].arguments == [Self.socketFD, 274, 13, 2])
            // Connected, the socket is made blocking: its reader waits in recv (F_GETFL, F_SETFL).
            #expect(trace[8].arguments == [Self.socketFD, 3, 0])
            #expect(trace[9].arguments[0...1] == [Self.socketFD, 4])
            #expect(trace[9].arguments[2] & 0x800 == 0, "O_NONBLOCK cleared")
            // The descriptor is closed once, with the epoll instance and the eventfd.
            #expect(Set(trace[14...].map { $0.arguments[0] }) == [Self.socketFD, 908, 909])
        }
    }

    @Test func publicPeerAndBoundAdapterAddress() throws {
        try MockingDriver.withMocking(Self.kernel(immediate: true)) { driver in
            do {
                _ = try L2CAPATTSocket.connect(
                    to: BluetoothAddress(value: 0x0011_2233_4455, type: .public),
                    source: BluetoothAddress(value: 0x0A0B_0C0D_0E0F),
                    security: nil,
                    timeout: .seconds(5),
                    canceller: nil
                )
            }
            let trace = driver.trace
            #expect(!trace.contains { $0.syscall == .setsockopt }, "no BT_SECURITY unless asked")
            #expect(!trace.contains { $0.syscall == .poll }, "a connect that completes at once is not polled")
            let bind = try #require(trace.first { $0.syscall == .bind })
            #expect(Array(bind.bytes.prefix(13)) == [31, 0, 0, 0, 0x0F, 0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 4, 0, 1])
            let connect = try #require(trace.first { $0.syscall == .connect })
            #expect(Array(connect.bytes.prefix(13)) == [31, 0, 0, 0, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 4, 0, 1])
        }
    }

    @Test func busyLinkIsExplained() {
        MockingDriver.withMocking(Self.kernel(connectErrno: EBUSY)) { driver in
            let error = failure { () throws(BLELinuxError) in
                try L2CAPATTSocket.connect(
                    to: Self.peer,
                    source: nil,
                    security: nil,
                    timeout: .seconds(5),
                    canceller: nil
                )
            }
            #expect(error?.kind == .busy)
            #expect(error?.message.contains("bluetoothd") == true)
            #expect(error?.message.contains("systemctl stop bluetooth") == true)
            #expect(error?.underlying == SystemError(syscall: .connect, errno: EBUSY))
            // The failed socket is closed, and nothing else was opened.
            #expect(driver.trace.filter { $0.syscall == .close }.map(\.arguments) == [[Self.socketFD]])
        }
    }

    @Test func timeoutAndCancelEndTheWait() throws {
        let timingOut: @Sendable (MockCall) -> MockReply = { call in
            switch call.syscall {
            case .socket: MockReply(result: Self.socketFD)
            case .connect: .failure(EINPROGRESS)
            case .poll: MockReply(result: 0)
            default: MockReply()
            }
        }
        MockingDriver.withMocking(timingOut) { _ in
            let error = failure { () throws(BLELinuxError) in
                try L2CAPATTSocket.connect(
                    to: Self.peer,
                    source: nil,
                    security: nil,
                    timeout: .milliseconds(10),
                    canceller: nil
                )
            }
            #expect(error?.kind == .timedOut)
        }
        // A real canceller (an eventfd) already signalled: the connect returns cancelled at once.
        let canceller = try ConnectCanceller()
        canceller.cancel()
        let cancelFD = Int(canceller.descriptor)
        let cancelling: @Sendable (MockCall) -> MockReply = { call in
            switch call.syscall {
            case .socket: MockReply(result: Self.socketFD)
            case .connect: .failure(EINPROGRESS)
            case .poll:
                // The second pollfd (the canceller) is readable.
                MockReply(
                    result: 1,
                    output: le(Int32(Self.socketFD)) + le(Int16(POLLOUT)) + le(Int16(0)) + le(Int32(cancelFD))
                        + le(Int16(POLLIN)) + le(Int16(POLLIN))
                )
            default: MockReply()
            }
        }
        MockingDriver.withMocking(cancelling) { driver in
            let error = failure { () throws(BLELinuxError) in
                try L2CAPATTSocket.connect(
                    to: Self.peer,
                    source: nil,
                    security: nil,
                    timeout: .seconds(5),
                    canceller: canceller
                )
            }
            #expect(error?.kind == .cancelled)
            let poll = driver.trace.first { $0.syscall == .poll }
            #expect(poll?.arguments[2] == cancelFD)
        }
    }

    @Test(arguments: [ENOPROTOOPT, EPROTONOSUPPORT, EINVAL])
    func receiveMTUFallsBackToTheFixedChannelDefault(code: Int32) throws {
        let mtu = try MockingDriver.withMocking(Self.kernel(mtuErrno: code)) { _ in
            try L2CAPATTSocket.connect(to: Self.peer, source: nil, security: nil, timeout: .seconds(5), canceller: nil)
                .maximumPDULength
        }
        #expect(mtu == 672)
    }

    @Test func otherReceiveMTUFailuresAreReported() {
        MockingDriver.withMocking(Self.kernel(mtuErrno: ENOTCONN)) { _ in
            let error = failure { () throws(BLELinuxError) in
                try L2CAPATTSocket.connect(
                    to: Self.peer,
                    source: nil,
                    security: nil,
                    timeout: .seconds(5),
                    canceller: nil
                )
            }
            #expect(error?.underlying == SystemError(syscall: .getsockopt, errno: ENOTCONN))
        }
    }
}
