import BLEHost
import BLETesting
import BLEWire
import Coordination
import Glibc
import Testing

@testable import BLELinux

/// Link tuning on the kernel path over a local SEQPACKET pair standing in for the raw HCI socket: the
/// exact command bytes, the events parsed (including a kernel's event for another handle), and the
/// refusals mapped to named statuses.
/// The time limit turns an answer that never comes to a clock that never moves into a failure
/// instead of a hang.
@Suite(.timeLimit(.minutes(2))) struct KernelLinkTuningTests {
    static let handle: UInt16 = 0x0040

    /// The next command the tuner sent: opcode and parameters (after the 0x01 indicator and length).
    static func command(_ kernel: CInt) async throws -> (opcode: UInt16, parameters: [UInt8]) {
        let packet = try #require(await received(kernel))
        try #require(packet.count >= 4 && packet[0] == 0x01 && Int(packet[3]) == packet.count - 4)
        return (UInt16(packet[1]) | UInt16(packet[2]) << 8, Array(packet[4...]))
    }

    static func complete(_ kernel: CInt, _ opcode: UInt16, _ parameters: [UInt8]) {
        put(kernel, [0x04, 0x0E, UInt8(3 + parameters.count), 0x01] + le(opcode) + parameters)
    }

    static func status(_ kernel: CInt, _ opcode: UInt16, _ status: UInt8) {
        put(kernel, [0x04, 0x0F, 0x04, status, 0x01] + le(opcode))
    }

    static func leMeta(_ kernel: CInt, _ parameters: [UInt8]) {
        put(kernel, [0x04, 0x3E, UInt8(parameters.count)] + parameters)
    }

    @Test func lowLatencyOverTheRawSocket() async throws {
        // The socket's clock never moves: the steps end by their answers and events, never by a
        // timeout, however long the whole suite running at once holds this test's part of the kernel back.
        let (hci, kernel) = try HCISocketTests.socket()
        defer { close(kernel) }
        let target = KernelLinkTuning(hci: hci, connectionHandle: Self.handle, commandTimeout: .seconds(5))
        var tuner = LinkTuner()
        tuner.eventTimeout = .seconds(5)
        tuner.connectionUpdateTimeout = .seconds(5)
        async let tuned = tuner.apply(.lowLatency, to: target)

        // Read Local Supported Commands: every command listed.
        var sent = try await Self.command(kernel)
        #expect(sent.opcode == 0x1002 && sent.parameters.isEmpty)
        Self.complete(kernel, 0x1002, [0x00] + [UInt8](repeating: 0xFF, count: 64))
        // LE Read Local Supported Features: data length extension and 2M PHY.
        sent = try await Self.command(kernel)
        #expect(sent.opcode == 0x2003)
        Self.complete(kernel, 0x2003, [0x00, 0x20, 0x01, 0, 0, 0, 0, 0, 0])
        // LE Read Remote Features on the handle: Command Status, then Read Remote Features Complete.
        sent = try await Self.command(kernel)
        #expect(sent.opcode == 0x2016 && sent.parameters == [0x40, 0x00])
        Self.status(kernel, 0x2016, 0x00)
        Self.leMeta(kernel, [0x04, 0x00, 0x40, 0x00, 0xFF, 0x01, 0, 0, 0, 0, 0, 0])
        // LE Connection Update 7.5–15 ms, latency 0, 2 s; the kernel's own link (0x0041) updates first,
        // then ours is refused in the Complete event.
        sent = try await Self.command(kernel)
        #expect(sent.opcode == 0x2013)
        #expect(
            sent.parameters == [0x40, 0x00, 0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00, 0x00, 0x00, 0x00]
        )
        Self.status(kernel, 0x2013, 0x00)
        Self.leMeta(kernel, [0x03, 0x00, 0x41, 0x00, 0x28, 0x00, 0x00, 0x00, 0x2A, 0x00])
        Self.leMeta(kernel, [0x03, 0x3B, 0x40, 0x00, 0x18, 0x00, 0x00, 0x00, 0x2A, 0x00])
        // LE Set Data Length 251 / 2120 µs: Command Complete, then Data Length Change.
        sent = try await Self.command(kernel)
        #expect(sent.opcode == 0x2022 && sent.parameters == [0x40, 0x00, 0xFB, 0x00, 0x48, 0x08])
        Self.complete(kernel, 0x2022, [0x00, 0x40, 0x00])
        Self.leMeta(kernel, [0x07, 0x40, 0x00, 0xFB, 0x00, 0x48, 0x08, 0x1B, 0x00, 0x48, 0x01])
        // LE Set PHY 2M both ways: refused at Command Status (Unsupported Remote Feature).
        sent = try await Self.command(kernel)
        #expect(sent.opcode == 0x2032 && sent.parameters == [0x40, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00])
        Self.status(kernel, 0x2032, 0x1A)

        let report = await tuned
        #expect(report.localFeatures == .done(0x120))
        #expect(report.remoteFeatures == .done(0x1FF))
        #expect(report.connection == .refused(opcode: 0x2013, status: .unacceptableConnectionParameters))
        #expect(
            report.dataLength
                == .done(LinkDataLengthState(maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27, maxRxTime: 328))
        )
        #expect(report.phy == .refused(opcode: 0x2032, status: .unsupportedRemoteFeature))
        #expect(report.lines[4].contains("Unsupported Remote Feature (0x1A)"))
        hci.close()
    }

    /// The wait for a command's event is measured on the socket's clock, as its answer's is: an event
    /// that never comes ends the wait when that clock passes the event timeout, not before.
    @Test func anEventThatDoesNotComeIsWaitedForOnTheSocketsClock() async throws {
        let clock = ManualClock()
        let (hci, kernel) = try HCISocketTests.socket(clock: clock)
        defer { close(kernel) }
        defer { hci.close() }
        let target = KernelLinkTuning(hci: hci, connectionHandle: Self.handle, commandTimeout: .seconds(2))
        let exchange = Task {
            try await target.exchange(
                HCILEReadRemoteFeatures(connectionHandle: 0x40),
                awaiting: 0x04,
                eventTimeout: .seconds(7)
            )
        }
        let sent = try await Self.command(kernel)
        #expect(sent.opcode == 0x2016)
        Self.status(kernel, 0x2016, 0x00)
        try #require(
            await eventually { clock.pendingDeadlines.contains(.seconds(7)) },
            "the event's wait is on the clock"
        )
        clock.advance(by: .seconds(6))
        #expect(clock.pendingDeadlines.contains(.seconds(7)), "not before its time")
        clock.advance(by: .seconds(1))
        let (answer, event) = try await exchange.value
        #expect(answer == .status(0x00))
        #expect(event == nil)
    }

    @Test func aSilentControllerAndAClosedSocketAreReported() async throws {
        // The system's clock: the first exchange ends by its 100 ms timeout.
        let (hci, kernel) = try HCISocketTests.socket(clock: SystemClock())
        defer { close(kernel) }
        let target = KernelLinkTuning(hci: hci, connectionHandle: Self.handle, commandTimeout: .milliseconds(100))
        await #expect(throws: LinkTuningFailure.noAnswer(opcode: 0x2003, waited: .milliseconds(100))) {
            _ = try await target.exchange(HCILEReadLocalSupportedFeatures(), awaiting: nil, eventTimeout: .zero)
        }
        hci.close()
        await #expect(throws: LinkTuningFailure.self) {
            _ = try await target.exchange(
                HCILEReadRemoteFeatures(connectionHandle: 0x40),
                awaiting: 0x04,
                eventTimeout: .seconds(1)
            )
        }
    }

    @Test func sourceAddressComesFromGetsockname() throws {
        try MockingDriver.withMocking({ call in
            if call.syscall == .getsockname {
                // sockaddr_l2: family, psm 0, bdaddr 00:1A:7D:DA:71:13 (wire order), cid 4, type public.
                return MockReply(output: [31, 0, 0, 0, 0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00, 4, 0, 1, 0])
            }
            return L2CAPConnectTraceTests.kernel(immediate: true)(call)
        }) { driver in
            do {
                let socket = try L2CAPATTSocket.connect(
                    to: L2CAPConnectTraceTests.peer,
                    source: nil,
                    security: nil,
                    timeout: .seconds(5),
                    canceller: nil
                )
                let source = try socket.sourceAddress()
                #expect(source == BluetoothAddress(value: 0x001A_7DDA_7113, type: .public))
            }
            let call = try #require(driver.trace.first { $0.syscall == .getsockname })
            #expect(call.arguments == [L2CAPConnectTraceTests.socketFD, 14])
        }
    }
}
