import BLEHost
import BLEWire
import Coordination
import Glibc
import Testing

@testable import BLELinux

/// Finding and ending a link the kernel holds (`hcipico pair` needs a fresh one): the `HCIGETCONNINFO`
/// request, and HCI Disconnect answered over a local pair standing in for the kernel.
@Suite(.timeLimit(.minutes(2))) struct HCISocketConnectionTests {
    static let peer = BluetoothAddress("F0:11:22:33:44:55", type: .random)!
    static let socketFD = 907

    @Test func theLookupAsksForTheAddressAsAnLELinkAndReadsTheHandle() throws {
        let handle = try MockingDriver.withMocking({ call in
            guard call.syscall == .ioctl, call.arguments[1] == CLayout.ioctlGetConnectionInfo else {
                return MockReply()
            }
            var answer = call.bytes
            answer.replaceSubrange(
                CLayout.connectionInfoAnswerOffset..<CLayout.connectionInfoAnswerOffset + 2,
                with: le(UInt16(0x0041))
            )
            return MockReply(output: answer)
        }) { driver in
            let socket = OwnedDescriptor(rawValue: CInt(Self.socketFD))
            let handle = try HCISocket.leConnectionHandle(on: socket, to: Self.peer)
            let request = try #require(driver.trace.first { $0.syscall == .ioctl })
            #expect(request.arguments == [Self.socketFD, CLayout.ioctlGetConnectionInfo])
            #expect(Array(request.bytes.prefix(7)) == Self.peer.wireBytes + [0x80])
            return handle
        }
        #expect(handle == 0x0041)
    }

    @Test func noSuchConnectionIsNilAndAnyOtherFailureIsThrown() throws {
        let none = try MockingDriver.withMocking({ call in call.syscall == .ioctl ? .failure(ENOENT) : MockReply() }) {
            _ in
            try HCISocket.leConnectionHandle(on: OwnedDescriptor(rawValue: CInt(Self.socketFD)), to: Self.peer)
        }
        #expect(none == nil)
        let thrown = MockingDriver.withMocking({ call in call.syscall == .ioctl ? .failure(EBADFD) : MockReply() }) {
            _ -> SystemError? in
            do throws(SystemError) {
                _ = try HCISocket.leConnectionHandle(on: OwnedDescriptor(rawValue: CInt(Self.socketFD)), to: Self.peer)
                return nil
            } catch {
                return error
            }
        }
        #expect(thrown?.errno == EBADFD)
    }

    @Test func disconnectWaitsForItsOwnDisconnectionComplete() async throws {
        // The system's clock: the last wait ends by its timeout.
        let (hci, kernel) = try HCISocketTests.socket(clock: SystemClock())
        defer { close(kernel) }
        async let ended = hci.endConnection(handle: 0x0041, describing: "the link", timeout: .seconds(30))
        let sent = try #require(await received(kernel))
        #expect(sent == [0x01, 0x06, 0x04, 0x03, 0x41, 0x00, 0x13])  // HCI Disconnect, Remote User Terminated
        put(kernel, [0x04, 0x0F, 0x04, 0x00, 0x01, 0x06, 0x04])  // Command Status: pending
        put(kernel, [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13])  // another link's Disconnection Complete
        put(kernel, [0x04, 0x05, 0x04, 0x00, 0x41, 0x00, 0x16])  // ours
        #expect(try await ended)

        // Another link's ending alone does not end the wait.
        let waiting = Task {
            await Self.failure { () throws(BLELinuxError) in
                try await hci.endConnection(handle: 0x0041, describing: "the link", timeout: .milliseconds(200))
            }
        }
        _ = try #require(await received(kernel))
        put(kernel, [0x04, 0x0F, 0x04, 0x00, 0x01, 0x06, 0x04])
        put(kernel, [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13])
        #expect(await waiting.value?.kind == .timedOut)
        hci.close()
    }

    @Test func anUnknownConnectionHadAlreadyEnded() async throws {
        let (hci, kernel) = try HCISocketTests.socket()
        defer { close(kernel) }
        async let ended = hci.endConnection(handle: 0x0041, describing: "the link", timeout: .seconds(30))
        _ = try #require(await received(kernel))
        put(kernel, [0x04, 0x0F, 0x04, 0x02, 0x01, 0x06, 0x04])  // Unknown Connection Identifier
        #expect(try await ended == false)
        hci.close()
    }

    @Test func aRefusalAndAMissingEventAreErrors() async throws {
        // The system's clock: the last wait ends by its timeout.
        let (hci, kernel) = try HCISocketTests.socket(clock: SystemClock())
        defer { close(kernel) }
        let refused = Task {
            await Self.failure { () throws(BLELinuxError) in
                try await hci.endConnection(handle: 0x0041, describing: "the link", timeout: .seconds(30))
            }
        }
        _ = try #require(await received(kernel))
        put(kernel, [0x04, 0x0F, 0x04, 0x0C, 0x01, 0x06, 0x04])  // Command Disallowed
        #expect(await refused.value?.kind == .refused)

        let silent = Task {
            await Self.failure { () throws(BLELinuxError) in
                try await hci.endConnection(handle: 0x0041, describing: "the link", timeout: .milliseconds(50))
            }
        }
        _ = try #require(await received(kernel))
        put(kernel, [0x04, 0x0F, 0x04, 0x00, 0x01, 0x06, 0x04])  // pending, and no Disconnection Complete
        #expect(await silent.value?.kind == .timedOut)
        hci.close()
    }

    /// The error `body` throws, nil when it returns.
    static func failure(_ body: () async throws(BLELinuxError) -> Bool) async -> BLELinuxError? {
        do throws(BLELinuxError) {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }
}
