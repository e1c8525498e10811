import BLEHost
import BLETesting
import BLEWire
import Foundation
import Glibc
import Testing

@testable import hcipico

/// `hcipico scan`: what it prints, and the input it refuses before any socket is opened.
@Suite struct ScanCommandTests {
    @Test func filterDefaultsToTheVSPServiceAndAcceptsAliases() throws {
        #expect(try ScanCommand.parse([]).filter() == .lairdVSP)
        #expect(try ScanCommand.parse(["--all"]).filter() == .all)
        #expect(
            try ScanCommand.parse(["--service", "nus", "--service", "180d"]).filter().services == [
                .nordicUARTService, BluetoothUUID(0x180D),
            ]
        )
        let narrowed = try ScanCommand.parse(["--name", "PicoSim2", "--address", "f0:11:22:33:44:56"]).filter()
        #expect(narrowed.services == [.lairdVSPService] && narrowed.namePrefix == "PicoSim2")
        #expect(narrowed.address?.value == 0xF011_2233_4456)
    }

    static let refused: [[String]] = [
        ["--service", "nope"], ["--address", "12:34"], ["--adapter", "hcix"], ["--transport", "tcpx"],
        ["--all", "--service", "vsp"], ["--adapter", "hci0", "--transport", "tcp:127.0.0.1:1"], ["--timeout", "-1"],
        ["--name", ""],
    ]

    @Test func badInputIsRefusedBeforeAnySocketIsOpened() throws {
        for arguments in Self.refused {
            #expect(throws: (any Error).self, "\(arguments)") { try ScanCommand.parse(arguments) }
        }
        // As built: exit status 64 and the reason, even on a kernel without Bluetooth (which would be 10).
        let binary = try builtHCIPico()
        for arguments in Self.refused {
            let run = try #require(runProgram(binary, ["scan"] + arguments))
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test func noBluetoothIsOneLineAndStatus10() throws {
        guard HostKernelTests.kernelErrno == EAFNOSUPPORT else { return }
        let run = try #require(runProgram(try builtHCIPico(), ["scan", "--timeout", "1"]))
        #expect(run.status == 10)
        #expect(run.stderr.hasPrefix("hcipico: this kernel has no Bluetooth support"))
        #expect(run.stderr.filter { $0 == "\n" }.count == 1, "exactly one line: \(run.stderr)")
    }
}
