import BLEHost
import BLEWire
import Coordination
import Glibc
import Testing

@testable import BLELinux

/// `HCISocket`'s command and event handling over a local SEQPACKET pair standing in for the kernel.
/// The socket's clock moves only when a test moves it (see `socket(clock:)`); the time limit turns an
/// answer that never comes into a failure instead of a hang.
@Suite(.timeLimit(.minutes(2))) struct HCISocketTests {
    static let adapter = HCIAdapterInfo(
        name: HCIAdapterName(index: 0),
        address: BluetoothAddress(value: 0x0011_2233_4455),
        isUp: true,
        flags: 1
    )

    /// A socket on one end of the pair, the test playing the kernel on the other. The default clock
    /// never moves: a test that is not about a timeout is never failed by one, however long the whole
    /// suite running at once on two cores holds the test's task back.
    static func socket(clock: any TimeSource = ManualClock()) throws -> (HCISocket, CInt) {
        let (ours, theirs) = socketPair()
        let link = try DescriptorChannel(
            socket: OwnedDescriptor(rawValue: ours),
            name: "test-hci",
            receiveCapacity: 1024
        )
        return (try HCISocket.running(adapter: adapter, channel: link, clock: clock), theirs)
    }

    @Test func commandCompleteAnswersTheCommand() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        async let answer = hci.command(opcode: 0x1009, parameters: [], timeout: .seconds(5))  // Read BD_ADDR
        let sent = try #require(await received(kernel))
        #expect(sent == [0x01, 0x09, 0x10, 0x00])
        // An unrelated event first (it goes to the event streams), then Command Complete for 0x1009.
        put(kernel, [0x04, 0x3E, 0x02, 0x03, 0x00])
        put(kernel, [0x04, 0x0E, 0x0A, 0x01, 0x09, 0x10, 0x00, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00])
        let result = try await answer
        #expect(result == .complete(returnParameters: [0x00, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00]))
        #expect(result.status == 0)
        hci.close()
    }

    @Test func commandStatusAnswersACommandWithALaterOutcome() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        // LE Connection Update on handle 0x0040: 14 parameter bytes.
        let parameters: [UInt8] = [0x40, 0x00, 0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x00, 0x00]
        async let answer = hci.command(opcode: 0x2013, parameters: parameters, timeout: .seconds(5))
        let sent = try #require(await received(kernel))
        #expect(sent == [0x01, 0x13, 0x20, 14] + parameters)
        put(kernel, [0x04, 0x0F, 0x04, 0x0C, 0x01, 0x13, 0x20])  // status 0x0C: Command Disallowed
        #expect(try await answer == .status(0x0C))
        hci.close()
    }

    @Test func eventsStreamLEMetaEvents() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        let events = hci.events()
        // LE Connection Update Complete, then PHY Update Complete.
        put(kernel, [0x04, 0x3E, 0x0A, 0x03, 0x00, 0x40, 0x00, 0x06, 0x00, 0x00, 0x00, 0x2A, 0x00])
        put(kernel, [0x04, 0x3E, 0x06, 0x0C, 0x00, 0x40, 0x00, 0x02, 0x02])
        var iterator = events.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.code == 0x3E)
        #expect(first.leSubevent == HCIEventPacket.LESubevent.connectionUpdateComplete)
        #expect(first.parameters == [0x03, 0x00, 0x40, 0x00, 0x06, 0x00, 0x00, 0x00, 0x2A, 0x00])
        let second = try #require(await iterator.next())
        #expect(second.leSubevent == HCIEventPacket.LESubevent.phyUpdateComplete)
        hci.close()
        #expect(await iterator.next() == nil, "the stream ends when the socket closes")
    }

    @Test func malformedEventsAreSkipped() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        let events = hci.events()
        put(kernel, [0x04, 0x3E, 0x05, 0x01])  // length says 5, one byte present
        put(kernel, [0x02, 0x40, 0x00, 0x00, 0x00])  // not an event
        put(kernel, [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13])  // Disconnection Complete
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == HCIEventPacket(code: 0x05, parameters: [0x00, 0x40, 0x00, 0x13]))
        hci.close()
    }

    @Test func unansweredCommandTimesOutWhenItsTimeHasPassed() async throws {
        let clock = ManualClock()
        let (hci, kernel) = try Self.socket(clock: clock)
        defer { close(kernel) }
        let unanswered = Task { try await hci.command(opcode: 0x0C03, timeout: .milliseconds(50)) }
        _ = try #require(await received(kernel))
        clock.advance(by: .milliseconds(49))
        #expect(clock.pendingDeadlines == [.milliseconds(50)])
        clock.advance(by: .milliseconds(1))
        await #expect(throws: HCICommandError.timedOut(opcode: 0x0C03)) { try await unanswered.value }
        hci.close()
    }

    @Test func eachWaitingCommandTimesOutAtItsOwnDeadline() async throws {
        let clock = ManualClock()
        let (hci, kernel) = try Self.socket(clock: clock)
        defer { close(kernel) }
        // A long wait armed first, then two short ones: the short ones time out, in turn, as the clock
        // passes their deadlines, while the long one still waits and is then answered.
        async let long = hci.command(opcode: 0x1001, timeout: .seconds(20))
        _ = try #require(await received(kernel))
        let first = Task { try await hci.command(opcode: 0x0C03, timeout: .milliseconds(50)) }
        _ = try #require(await received(kernel))
        clock.advance(by: .milliseconds(50))
        await #expect(throws: HCICommandError.timedOut(opcode: 0x0C03)) { try await first.value }
        let second = Task { try await hci.command(opcode: 0x1009, timeout: .milliseconds(100)) }
        _ = try #require(await received(kernel))
        clock.advance(by: .milliseconds(100))
        await #expect(throws: HCICommandError.timedOut(opcode: 0x1009)) { try await second.value }
        // Not held until the long one's deadline (20 s): the clock is at 150 ms.
        #expect(clock.now == .milliseconds(150))
        put(kernel, [0x04, 0x0E, 0x04, 0x01, 0x01, 0x10, 0x00])
        #expect(try await long == .complete(returnParameters: [0x00]))
        hci.close()
    }

    @Test func secondCommandWithTheSameOpcodeIsRefusedWhileTheFirstWaits() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        async let first = hci.command(opcode: 0x1001, timeout: .seconds(5))
        _ = try #require(await received(kernel))
        await #expect(throws: HCICommandError.alreadyPending(opcode: 0x1001)) {
            try await hci.command(opcode: 0x1001, timeout: .seconds(5))
        }
        put(kernel, [0x04, 0x0E, 0x04, 0x01, 0x01, 0x10, 0x00])
        #expect(try await first == .complete(returnParameters: [0x00]))
        hci.close()
    }

    @Test func closingFailsTheWaitingCommand() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        let waiting = Task {
            try await hci.command(opcode: 0x2001, parameters: [UInt8](repeating: 0xFF, count: 8), timeout: .seconds(5))
        }
        _ = try #require(await received(kernel))
        hci.close()
        await #expect(throws: HCICommandError.transport(.closed)) { try await waiting.value }
    }

    @Test func tooManyParametersAreRefusedBeforeSending() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        await #expect(throws: HCICommandError.parametersTooLong(count: 256)) {
            try await hci.command(opcode: 0x2008, parameters: [UInt8](repeating: 0, count: 256))
        }
        hci.close()
    }

    @Test func cancellingTheTaskEndsTheWait() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        let waiting = Task {
            try await hci.command(opcode: 0x2032, parameters: [0x40, 0x00, 0, 2, 2, 0, 0], timeout: .seconds(30))
        }
        _ = try #require(await received(kernel))
        waiting.cancel()
        await #expect(throws: HCICommandError.cancelled(opcode: 0x2032)) { try await waiting.value }
        // The opcode is free again: a new command with it is sent and answered.
        async let again = hci.command(opcode: 0x2032, parameters: [0x40, 0x00, 0, 2, 2, 0, 0], timeout: .seconds(5))
        _ = try #require(await received(kernel))
        put(kernel, [0x04, 0x0F, 0x04, 0x00, 0x01, 0x32, 0x20])
        #expect(try await again == .status(0))
        hci.close()
    }

    @Test func alreadyCancelledTaskDoesNotWait() async throws {
        let (hci, kernel) = try Self.socket()
        defer { close(kernel) }
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await hci.command(opcode: 0x0C03, timeout: .seconds(30))
        }
        await #expect(throws: HCICommandError.cancelled(opcode: 0x0C03)) { try await waiting.value }
        hci.close()
    }
}
