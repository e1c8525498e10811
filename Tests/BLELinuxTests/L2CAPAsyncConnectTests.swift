import BLEWire
import Glibc
import Testing

@testable import BLELinux

/// The async connect: it runs the blocking connect on its own thread (which sees the test's mocked
/// system calls) and turns task cancellation into a wakeup of that thread's poll.
@Suite struct L2CAPAsyncConnectTests {
    static let peer = BluetoothAddress(value: 0x1122_3344_5566, type: .public)

    @Test func connectReturnsTheConnectedSocket() async throws {
        try await MockingDriver.withMocking(L2CAPConnectTraceTests.kernel()) { driver in
            do {
                let socket = try await L2CAPATTSocket.connect(to: Self.peer, timeout: .seconds(5))
                #expect(socket.connectionHandle == 0x0040)
                #expect(socket.peer == Self.peer)
            }
            // Released while the mocks still answer (its descriptors are fake): the canceller's eventfd,
            // the socket, the link's epoll instance and eventfd are closed once each.
            let calls = driver.trace.map(\.syscall)
            #expect(calls.filter { $0 == .close }.count == 4)
            #expect(calls.prefix(2) == [.eventfd, .socket], "the connecting thread used the test's mocks")
        }
    }

    @Test func cancellingTheTaskWakesTheConnectingThread() async throws {
        // A kernel whose connect never completes: poll blocks (for real) on the canceller's eventfd only.
        let kernel: @Sendable (MockCall) -> MockReply = { call in
            switch call.syscall {
            case .socket: return MockReply(result: 907)
            case .connect: return .failure(EINPROGRESS)
            case .poll:
                var cancel = pollfd(fd: CInt(call.arguments[2]), events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&cancel, 1, 120_000) == 1 else { return MockReply(result: 0) }
                let output = le(Int32(907)) + le(Int16(POLLOUT)) + le(Int16(0)) + le(cancel.fd) + le(Int16(POLLIN))
                return MockReply(result: 1, output: output + le(cancel.revents))
            default: return MockReply()
            }
        }
        let error = await MockingDriver.withMocking(kernel) { _ in
            let connecting = Task { () async throws(BLELinuxError) -> L2CAPATTSocket in
                try await L2CAPATTSocket.connect(to: Self.peer, timeout: .seconds(20))
            }
            try? await Task.sleep(for: .milliseconds(50))
            connecting.cancel()
            return await connecting.result
        }
        guard case .failure(let failure) = error else {
            Issue.record("connect succeeded")
            return
        }
        // `.cancelled`, not the 20 s timeout's error, says the poll was woken by the cancellation.
        #expect((failure as? BLELinuxError)?.kind == .cancelled)
    }
}
