import Glibc
import Synchronization

@testable import BLELinux

/// A kernel with one adapter, hci0 (up, 00:11:22:33:44:55), behind the mocked system calls: the raw
/// HCI socket's reader blocks in `epoll_wait` until a packet is queued, `read` hands the packets
/// over in order, and every command `send` gives is answered by `answer` (the packets to deliver,
/// each with its H4 indicator byte).
final class ScriptedHCIKernel: Sendable {
    static let controlFD = 940
    static let socketFD = 941
    static let epollFD = 942
    static let eventFD = 943

    private struct State {
        var inbound: [[UInt8]] = []
        var woken = false
        var commands: [[UInt8]] = []
        var readError: Int32?
    }

    private let state = Mutex(State())
    private let answer: @Sendable ([UInt8]) -> [[UInt8]]

    init(answer: @escaping @Sendable (_ command: [UInt8]) -> [[UInt8]]) { self.answer = answer }

    /// The command packets sent so far (indicator 0x01, opcode, length, parameters).
    var commands: [[UInt8]] { state.withLock { $0.commands } }

    /// Queues packets for the socket's reader.
    func deliver(_ packets: [[UInt8]]) { state.withLock { $0.inbound += packets } }

    /// The next empty read fails with `errno` (the adapter went away).
    func failReads(_ errno: Int32) { state.withLock { $0.readError = errno } }

    /// Command Complete for `opcode` with `returnParameters`.
    static func commandComplete(_ opcode: UInt16, _ returnParameters: [UInt8] = [0x00]) -> [UInt8] {
        [0x04, 0x0E, UInt8(3 + returnParameters.count), 0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8)]
            + returnParameters
    }

    /// An LE Meta event with `subevent` and its parameters.
    static func leMeta(_ subevent: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [0x04, 0x3E, UInt8(1 + parameters.count), subevent] + parameters
    }

    func reply(_ call: MockCall) -> MockReply {
        switch call.syscall {
        case .socket:
            let nonBlocking = call.arguments[1] & CLayout.socketNonBlock != 0
            return MockReply(result: nonBlocking ? Self.socketFD : Self.controlFD)
        case .ioctl where call.arguments[1] == CLayout.ioctlGetDeviceList:
            return MockReply(output: le(UInt16(1)) + [0, 0] + le(UInt16(0)) + [0, 0] + le(UInt32(0)))
        case .ioctl where call.arguments[1] == CLayout.ioctlGetDeviceInfo:
            return MockReply(
                output: HCIAdapterTraceTests.deviceInfo(
                    index: 0,
                    address: [0x55, 0x44, 0x33, 0x22, 0x11, 0x00],
                    up: true
                )
            )
        case .epollCreate: return MockReply(result: Self.epollFD)
        case .eventfd: return MockReply(result: Self.eventFD)
        case .epollWait: return waitForPacket()
        case .read where call.arguments[0] == Self.socketFD:
            return state.withLock { state in
                if state.inbound.isEmpty {
                    if let code = state.readError { return .failure(code) }
                    return .failure(EAGAIN)
                }
                let packet = state.inbound.removeFirst()
                return MockReply(result: packet.count, output: packet)
            }
        case .write where call.arguments[0] == Self.eventFD:
            state.withLock { $0.woken = true }
            return MockReply(result: 8)
        case .send where call.arguments[0] == Self.socketFD:
            let packets = answer(call.bytes)
            state.withLock { state in
                state.commands.append(call.bytes)
                state.inbound += packets
            }
            return MockReply(result: call.bytes.count)
        default:
            return MockReply()
        }
    }

    /// Blocks the reader until there is something to read, a wake-up, or a read error to give (at
    /// least 120 s, then a wake-up so that a broken test ends: longer than a test may wait between
    /// two commands while the whole suite runs at once on two cores).
    private func waitForPacket() -> MockReply {
        for _ in 0..<600_000 {
            let ready = state.withLock { state -> UInt64? in
                if state.woken { return 2 }
                return state.inbound.isEmpty && state.readError == nil ? nil : 1
            }
            if let token = ready { return MockReply(result: 1, output: le(UInt32(0x001)) + le(token)) }
            usleep(200)
        }
        return MockReply(result: 1, output: le(UInt32(0x001)) + le(UInt64(2)))
    }
}
