import BLETesting
import Glibc
import Testing

@testable import BLELinux
@testable import hcipico

@Suite struct ErrorMappingTests {
    struct Case: Sendable, CustomStringConvertible {
        var syscall: Syscall
        var errno: Int32
        var kind: BLELinuxError.Kind
        var exit: Int32
        var mentions: String
        var description: String { "\(syscall.rawValue) \(SystemError(syscall: syscall, errno: errno).errnoName)" }
    }

    static let cases: [Case] = [
        Case(syscall: .socket, errno: EAFNOSUPPORT, kind: .noBluetooth, exit: 10, mentions: "no Bluetooth support"),
        Case(syscall: .bind, errno: EPERM, kind: .noPermission, exit: 13, mentions: "CAP_NET_RAW"),
        Case(syscall: .socket, errno: EACCES, kind: .noPermission, exit: 13, mentions: "CAP_NET_ADMIN"),
        Case(syscall: .ioctl, errno: ENODEV, kind: .noAdapter, exit: 11, mentions: "hcipico adapters"),
        Case(syscall: .bind, errno: ENETDOWN, kind: .adapterDown, exit: 12, mentions: "power on"),
        Case(syscall: .connect, errno: EBUSY, kind: .busy, exit: 14, mentions: "bluetoothd"),
        Case(syscall: .bind, errno: EBUSY, kind: .busy, exit: 14, mentions: "bluetoothd"),
        Case(syscall: .connect, errno: ETIMEDOUT, kind: .timedOut, exit: 5, mentions: "in time"),
        Case(syscall: .connect, errno: EACCES, kind: .securityFailed, exit: 7, mentions: "security level"),
        Case(syscall: .connect, errno: EHOSTDOWN, kind: .refused, exit: 4, mentions: "could not be reached"),
        Case(syscall: .ioctl, errno: EINVAL, kind: .system, exit: 1, mentions: "EINVAL"),
    ]

    @Test(arguments: cases)
    func errnoMapsToKindExitStatusAndOneLine(_ test: Case) {
        let error = BLELinuxError(SystemError(syscall: test.syscall, errno: test.errno), subject: "hci0")
        #expect(error.kind == test.kind)
        #expect(error.exitStatus.rawValue == test.exit)
        #expect(error.message.contains(test.mentions), "\(error.message)")
        #expect(!error.message.contains("\n"), "one line")
        #expect(error.underlying == SystemError(syscall: test.syscall, errno: test.errno))
    }

    @Test func everyKindHasADistinctExitStatusFromSuccess() {
        let kinds: [BLELinuxError.Kind] = [
            .noBluetooth, .noPermission, .noAdapter, .adapterDown, .adapterUp, .busy, .timedOut, .cancelled,
            .refused, .securityFailed, .unresolvedHost, .system,
        ]
        for kind in kinds {
            #expect(BLELinuxError(kind, "x").exitStatus != .success)
        }
    }

    @Test func socketFailureOnAdapterListIsMapped() {
        MockingDriver.withMocking({ _ in .failure(EAFNOSUPPORT) }) { driver in
            let error = failure { () throws(BLELinuxError) in try HCIAdapters.list() }
            #expect(error?.kind == .noBluetooth)
            #expect(driver.trace.map(\.syscall) == [.socket])
        }
    }
}
