import BLETesting
import BLEWire
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

    /// `hcipico adapters` as built: without Bluetooth one line on stderr and exit status 10; in the
    /// kernel tier's guest the adapter list.
    @Test func adaptersCommandMatchesTheKernel() throws {
        let binary = try builtHCIPico()
        let run = try #require(runProgram(binary, ["adapters"]))
        if Self.kernelErrno == EAFNOSUPPORT {
            #expect(run.status == 10)
            #expect(run.stderr.hasPrefix("hcipico: this kernel has no Bluetooth support"))
            #expect(run.stderr.filter { $0 == "\n" }.count == 1, "exactly one line: \(run.stderr)")
            #expect(run.stdout.isEmpty)
        } else {
            #expect(run.status != 10)
            if getenv("BLE_KERNEL_TESTS") != nil {
                // The kernel tier's guest: hci0 is attached and up.
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdout.contains("hci0  "), "\(run.stdout)")
                #expect(run.stdout.contains("  up"), "\(run.stdout)")
            }
        }
    }
}
