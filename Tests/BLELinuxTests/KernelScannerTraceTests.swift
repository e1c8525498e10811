import BLEHost
import BLETesting
import BLEWire
import Coordination
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// `KernelScanner` on the raw HCI socket against a scripted kernel: the exact command bytes, the
/// reports decoded from canned events, and the scan disabled on every way out.
/// The socket's clock moves only when a test moves it; the time limit turns a report that never
/// comes into a failure instead of a hang.
@Suite(.timeLimit(.minutes(2))) struct KernelScannerTraceTests {
    static let peer: [UInt8] = [0x55, 0x44, 0x33, 0x22, 0x11, 0xF0]  // F0:11:22:33:44:55, wire order
    static let vsp = Array(BluetoothUUID.lairdVSPService.bigEndianBytes.reversed())

    /// ADV_IND: flags, the VSP service, "PicoSim"; RSSI −50.
    static let advertisement = ScriptedHCIKernel.leMeta(
        0x02,
        [0x01, 0x00, 0x01] + peer + [30, 0x02, 0x01, 0x06, 17, 0x07] + vsp + [8, 0x09] + Array("PicoSim".utf8) + [0xCE]
    )
    /// SCAN_RSP: TX power −10, manufacturer 0x0059 [1 2], service 180D, service data 180F [0x64]; RSSI −48.
    static let scanResponse = ScriptedHCIKernel.leMeta(
        0x02,
        [0x01, 0x04, 0x01] + peer + [
            18, 2, 0x0A, 0xF6, 5, 0xFF, 0x59, 0x00, 1, 2, 3, 0x03, 0x0D, 0x18, 4, 0x16, 0x0F, 0x18, 0x64,
        ]
            + [0xD0]
    )
    /// Extended, connectable, not legacy, public address, TX power +4, RSSI −60: 32-bit UUID, short name.
    static let extendedReport = ScriptedHCIKernel.leMeta(
        0x0D,
        [0x01, 0x01, 0x00, 0x00] + peer + [0x01, 0x00, 0xFF, 0x04, 0xC4, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            + [13, 5, 0x05, 0x78, 0x56, 0x34, 0x12, 6, 0x08] + Array("Pico2".utf8)
    )

    /// Answers every command with success; the Supported_Commands bitmap lists the extended scan
    /// commands when `extended`; enabling delivers `reports`.
    static func kernel(
        extended: Bool = false,
        status: [UInt16: UInt8] = [:],
        reports: [[UInt8]] = []
    ) -> ScriptedHCIKernel {
        ScriptedHCIKernel { command in
            let opcode = UInt16(command[1]) | UInt16(command[2]) << 8
            if let refused = status[opcode] { return [ScriptedHCIKernel.commandComplete(opcode, [refused])] }
            switch opcode {
            case 0x1002:
                var bitmap = [UInt8](repeating: 0, count: 64)
                bitmap[26] = 0b0000_1100  // LE Set Scan Parameters, LE Set Scan Enable
                if extended { bitmap[37] = 0b0110_0000 }  // LE Set Extended Scan Parameters / Enable
                return [ScriptedHCIKernel.commandComplete(opcode, [0x00] + bitmap)]
            case 0x200C, 0x2042:
                return [ScriptedHCIKernel.commandComplete(opcode)] + (command[4] == 1 ? reports : [])
            default:
                return [ScriptedHCIKernel.commandComplete(opcode)]
            }
        }
    }

    /// Runs `body` with the scripted kernel answering every system call, on a socket whose clock only
    /// moves when told: a test that is not about a timeout or the scan's duration is never ended by
    /// one, however long the whole suite running at once takes to get to the reports.
    static func withKernel<T>(
        _ kernel: ScriptedHCIKernel,
        clock: any TimeSource = ManualClock(),
        _ body: (HCISocket, MockingDriver) async throws -> T
    ) async throws -> T {
        try await MockingDriver.withMocking(kernel.reply) { driver in
            let socket = try HCISocket.open(nil, clock: clock)
            defer { socket.close() }
            return try await body(socket, driver)
        }
    }

    @Test func legacyActiveScanSendsTheExactCommandsAndDecodesBothReports() async throws {
        let kernel = Self.kernel(reports: [Self.advertisement, Self.scanResponse])
        var seen: [HCIAdvertisement] = []
        let outcome = try await Self.withKernel(kernel) { socket, driver in
            let outcome = try await KernelScanner(socket: socket).scan(ScanParameters(), for: .seconds(5)) {
                seen.append($0)
                return seen.count < 2
            }
            // The socket's filter passes LE Meta (0x3E: bit 30 of the second event-mask word).
            let filter = try #require(driver.trace.first { $0.syscall == .setsockopt })
            #expect(Array(filter.bytes[8..<12]) == le(UInt32(1 << 30)))
            return outcome
        }
        #expect(
            kernel.commands == [
                [0x01, 0x02, 0x10, 0x00],  // Read Local Supported Commands
                [0x01, 0x0B, 0x20, 0x07, 0x01, 0x60, 0x00, 0x60, 0x00, 0x00, 0x00],  // active, 60 ms / 60 ms
                [0x01, 0x0C, 0x20, 0x02, 0x01, 0x01],  // enable, filter duplicates
                [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00],  // disable
            ]
        )
        #expect(outcome.ending == .stopped)
        #expect(!outcome.extended)
        #expect(outcome.reports == 2)
        #expect(outcome.restoreFailure == nil)
        try #require(seen.count == 2)
        #expect(seen[0].address == BluetoothAddress(value: 0xF011_2233_4455, type: .random))
        #expect(seen[0].rssi == -50)
        #expect(seen[0].connectable && !seen[0].isScanResponse && !seen[0].extended)
        #expect(seen[0].data?.flags == 0x06)
        #expect(seen[0].name == "PicoSim")
        #expect(seen[0].data?.serviceUUIDs == [.lairdVSPService])
        #expect(seen[1].isScanResponse)
        #expect(seen[1].data?.txPowerLevel == -10)
        #expect(seen[1].data?.manufacturerData == [.init(companyID: 0x0059, data: [1, 2])])
        #expect(seen[1].data?.serviceUUIDs == [BluetoothUUID(0x180D)])
        #expect(seen[1].data?.serviceData == [.init(uuid: BluetoothUUID(0x180F), data: [0x64])])
        var device = DiscoveredDevice(seen[0])
        device.merge(seen[1])
        #expect(device.rssi == -48)
        #expect(device.services == [.lairdVSPService, BluetoothUUID(0x180D), BluetoothUUID(0x180F)])
        #expect(device.connectable, "a scan response does not change connectability")
    }

    @Test func passiveScanWithOwnTimingAndDuplicatesReported() async throws {
        let kernel = Self.kernel()
        let parameters = ScanParameters(active: false, interval: 0x0010, window: 0x0008, filterDuplicates: false)
        let outcome = try await Self.withKernel(kernel, clock: SystemClock()) { socket, _ in
            try await KernelScanner(socket: socket).scan(parameters, for: .milliseconds(50)) { _ in true }
        }
        #expect(outcome.ending == .duration)
        #expect(
            Array(kernel.commands.dropFirst()) == [
                [0x01, 0x0B, 0x20, 0x07, 0x00, 0x10, 0x00, 0x08, 0x00, 0x00, 0x00],
                [0x01, 0x0C, 0x20, 0x02, 0x01, 0x00],
                [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00],
            ]
        )
    }

    /// A scanner measures on its socket's clock unless given another; the scan's duration is measured
    /// on the scanner's: an hour of a manual clock ends it. (The hour passes on a clock of the scanner's
    /// own: moved on the socket's, it could also pass the enable command's timeout before its answer
    /// was taken.)
    @Test func theDurationIsMeasuredOnTheScannersClockBeingTheSocketsUnlessGiven() async throws {
        let kernel = Self.kernel()
        let socketClock = ManualClock()
        let clock = ManualClock()
        let outcome = try await Self.withKernel(kernel, clock: socketClock) { socket, _ in
            #expect(KernelScanner(socket: socket).clock as? ManualClock === socketClock)
            let scanner = KernelScanner(socket: socket, clock: clock)
            async let scanned = scanner.scan(ScanParameters(), for: .seconds(3600)) { _ in true }
            // Once scanning is enabled (Read Local Supported Commands, parameters, enable), the hour passes.
            #expect(await eventually { kernel.commands.count == 3 })
            clock.advance(by: .seconds(3600))
            return try await scanned
        }
        #expect(outcome.ending == .duration)
        #expect(kernel.commands.count == 4, "scanning was disabled again")
    }

    @Test func extendedCommandsWhenTheBitmapListsThemAndTheExtendedReportDecodes() async throws {
        let kernel = Self.kernel(extended: true, reports: [Self.extendedReport])
        var seen: [HCIAdvertisement] = []
        let outcome = try await Self.withKernel(kernel) { socket, _ in
            try await KernelScanner(socket: socket).scan(ScanParameters(), for: .seconds(5)) {
                seen.append($0)
                return false
            }
        }
        #expect(outcome.extended)
        #expect(
            Array(kernel.commands.dropFirst()) == [
                // own public, accept all, LE 1M; active, 60 ms / 60 ms
                [0x01, 0x41, 0x20, 0x08, 0x00, 0x00, 0x01, 0x01, 0x60, 0x00, 0x60, 0x00],
                [0x01, 0x42, 0x20, 0x06, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00],
                [0x01, 0x42, 0x20, 0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00],
            ]
        )
        let report = try #require(seen.first)
        #expect(report.extended && !report.legacyPDU && report.connectable)
        #expect(report.address == BluetoothAddress(value: 0xF011_2233_4455, type: .public))
        #expect(report.txPower == 4)
        #expect(report.rssi == -60)
        #expect(report.data?.serviceUUIDs == [BluetoothUUID(uuid32: 0x1234_5678)])
        #expect(report.name == "Pico2")
        #expect(report.data?.isLocalNameComplete == false)
    }

    @Test func malformedReportIsLocatedAndTheNextOneStillArrives() async throws {
        // Data length 40 with three bytes present: the report runs past its event.
        let broken = ScriptedHCIKernel.leMeta(0x02, [0x01, 0x00, 0x01] + Self.peer + [40, 0x02, 0x01, 0x06, 0xCE])
        let kernel = Self.kernel(reports: [broken, Self.advertisement])
        var names: [String?] = []
        let outcome = try await Self.withKernel(kernel) { socket, _ in
            try await KernelScanner(socket: socket).scan(ScanParameters(), for: .seconds(5)) {
                names.append($0.name)
                return false
            }
        }
        #expect(names == ["PicoSim"])
        #expect(outcome.malformedReports == 1)
        // Event code, length, subevent, count, type, address type, address, data length: the data
        // starts at byte 13 and needs 40 bytes where 4 are left.
        #expect(outcome.malformedErrors == [DecodeError(offset: 13, reason: .truncated(needed: 40, available: 4))])
        #expect(kernel.commands.last == [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00])
    }

    @Test func cancellingTheScanDisablesIt() async throws {
        let kernel = Self.kernel(reports: [Self.advertisement])
        let sends = try await MockingDriver.withMocking(kernel.reply) { driver in
            let socket = try HCISocket.open(nil)
            defer { socket.close() }
            let reports = Atomic<Int>(0)
            let scan = Task {
                try await KernelScanner(socket: socket).scan(ScanParameters(), for: nil) { _ in
                    reports.add(1, ordering: .relaxed)
                    return true
                }
            }
            // Cancelled once scanning runs and a report came (as Ctrl-C or SIGTERM would).
            try #require(await eventually { reports.load(ordering: .relaxed) > 0 }, "no report came")
            scan.cancel()
            let outcome = try await scan.value
            #expect(outcome.ending == .cancelled)
            #expect(outcome.restoreFailure == nil)
            return driver.trace.filter { $0.syscall == .send && $0.arguments[0] == ScriptedHCIKernel.socketFD }
        }
        #expect(
            sends.map(\.bytes).suffix(2) == [
                [0x01, 0x0C, 0x20, 0x02, 0x01, 0x01], [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00],
            ]
        )
    }

    @Test func cancelledBeforeTheAnswerToEnableStillDisables() async throws {
        // The enable command is never answered: the task is cancelled while it waits.
        let kernel = ScriptedHCIKernel { command in
            let opcode = UInt16(command[1]) | UInt16(command[2]) << 8
            if opcode == 0x200C && command[4] == 1 { return [] }
            let bitmap = opcode == 0x1002 ? [UInt8](repeating: 0, count: 64) : []
            return [ScriptedHCIKernel.commandComplete(opcode, [0x00] + bitmap)]
        }
        let outcome = try await MockingDriver.withMocking(kernel.reply) { _ in
            let socket = try HCISocket.open(nil)
            defer { socket.close() }
            let scan = Task { try await KernelScanner(socket: socket).scan(ScanParameters(), for: nil) { _ in true } }
            try #require(await eventually { kernel.commands.count >= 3 }, "\(kernel.commands)")
            scan.cancel()
            return try await scan.value
        }
        #expect(outcome.ending == .cancelled)
        #expect(kernel.commands.last == [0x01, 0x0C, 0x20, 0x02, 0x00, 0x00])
    }

    @Test func commandDisallowedIsBusyAndNothingIsDisabled() async throws {
        for opcode: UInt16 in [0x200B, 0x200C] {
            let kernel = Self.kernel(status: [opcode: 0x0C])
            let error = try await Self.withKernel(kernel) { socket, _ -> BLELinuxError? in
                do throws(BLELinuxError) {
                    _ = try await KernelScanner(socket: socket).scan(ScanParameters(), for: .seconds(1)) { _ in true }
                    return nil
                } catch {
                    return error
                }
            }
            #expect(error?.kind == .busy)
            #expect(error?.message.contains("hci0 refused to") == true)
            #expect(error?.message.contains("Command Disallowed (0x0C)") == true)
            #expect(
                kernel.commands.last?.prefix(3) == [0x01, UInt8(opcode & 0xFF), 0x20],
                "no disable after a refusal"
            )
        }
    }

    @Test func anAdapterThatGoesAwayEndsTheScan() async throws {
        let kernel = Self.kernel(reports: [Self.advertisement])
        let outcome = try await Self.withKernel(kernel) { socket, _ in
            try await KernelScanner(socket: socket).scan(ScanParameters(), for: .seconds(10)) { _ in
                kernel.failReads(ENODEV)
                return true
            }
        }
        #expect(outcome.ending == .socketClosed("disconnected"))
        #expect(outcome.restoreFailure != nil)
    }
}
