import BLEWire
import Foundation
import Glibc
import Testing

@testable import BLELinux

/// What this machine's kernel really does, with no mocking: on a kernel without Bluetooth every entry
/// point must give the one-line EAFNOSUPPORT explanation; on one with Bluetooth (the qemu guest) they
/// must not claim it is missing.
@Suite struct HostKernelTests {
    /// The kernel's own answer, asked directly through Glibc rather than through the code under test.
    static let kernelErrno: Int32 = {
        let fd = Glibc.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_HCI_VALUE)
        if fd >= 0 {
            Glibc.close(fd)
            return 0
        }
        return errno
    }()

    static let BTPROTO_HCI_VALUE: Int32 = 1

    @Test func adapterListMatchesTheKernel() {
        let error = failure { () throws(BLELinuxError) in try HCIAdapters.list() }
        if Self.kernelErrno == EAFNOSUPPORT {
            #expect(error?.kind == .noBluetooth)
            #expect(error?.underlying == SystemError(syscall: .socket, errno: EAFNOSUPPORT))
        } else {
            #expect(error?.kind != .noBluetooth)
        }
    }

    @Test func l2capConnectMatchesTheKernel() async {
        let peer = BluetoothAddress(value: 0xC0FF_EE00_0001, type: .random)
        do {
            let socket = try await L2CAPATTSocket.connect(to: peer, timeout: .milliseconds(300))
            socket.close()
            Issue.record("connected to a peer that does not exist")
        } catch {
            if Self.kernelErrno == EAFNOSUPPORT {
                #expect(error.kind == .noBluetooth)
            } else {
                #expect(error.kind != .noBluetooth)
            }
        }
    }

    @Test func hciSocketOpenMatchesTheKernel() {
        let error = failure { () throws(BLELinuxError) in try HCISocket.open(nil) }
        if Self.kernelErrno == EAFNOSUPPORT {
            #expect(error?.kind == .noBluetooth)
        }
    }

    /// `hcipico adapters` as built: on this kind of kernel one line on stderr and exit status 10.
    @Test func adaptersCommandReportsMissingBluetooth() throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let binary = directory.appendingPathComponent("hcipico")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build hcipico first (swift build)")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["adapters"]
        let errorPipe = Pipe()
        let outputPipe = Pipe()
        process.standardError = errorPipe
        process.standardOutput = outputPipe
        try process.run()
        process.waitUntilExit()
        let stderr = String(decoding: errorPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stdout = String(decoding: outputPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        if Self.kernelErrno == EAFNOSUPPORT {
            #expect(process.terminationStatus == 10)
            #expect(stderr.hasPrefix("hcipico: this kernel has no Bluetooth support"))
            #expect(stderr.filter { $0 == "\n" }.count == 1, "exactly one line: \(stderr)")
            #expect(stdout.isEmpty)
        } else {
            #expect(process.terminationStatus != 10)
        }
    }
}
