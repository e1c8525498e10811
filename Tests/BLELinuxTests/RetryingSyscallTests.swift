import Glibc
import Synchronization
import Testing

@testable import BLELinux

@Suite struct RetryingSyscallTests {
    /// Replies in turn from `replies`, then fails with EIO.
    static func script(_ replies: [MockReply]) -> @Sendable (MockCall) -> MockReply {
        let queue = Mutex(replies[...])
        return { _ in queue.withLock { $0.popFirst() } ?? .failure(EIO) }
    }

    @Test func interruptedCallsAreRetried() throws {
        try MockingDriver.withMocking(Self.script([.failure(EINTR), .failure(EINTR), MockReply(result: 5)])) {
            driver in
            var buffer = [UInt8](repeating: 0, count: 8)
            let result = try buffer.withTypedMutableBytes { bytes throws(SystemError) in
                try retryingSyscall(.read) { system_read(3, bytes.baseAddress!, bytes.count) }
            }
            #expect(result == .processed(5))
            #expect(driver.trace == Array(repeating: MockCall(.read, [3, 8]), count: 3))
        }
    }

    @Test func wouldBlockIsAValue() throws {
        try MockingDriver.withMocking(Self.script([.failure(EAGAIN)])) { driver in
            let result = try retryingSyscall(.write) { system_write(4, "x", 1) }
            #expect(result == .wouldBlock)
            #expect(driver.trace == [MockCall(.write, [4, 1], bytes: [0x78])])
        }
    }

    @Test(arguments: [EPERM, EBUSY, ENODEV, EAFNOSUPPORT, EINVAL])
    func otherFailuresNameTheCallAndErrno(code: Int32) {
        MockingDriver.withMocking(Self.script([.failure(code)])) { _ in
            #expect(throws: SystemError(syscall: .socket, errno: code)) {
                _ = try OwnedDescriptor.socket(domain: 31, type: 3, protocol: 1)
            }
        }
    }

    @Test func socketDescriptorClosesExactlyOnce() throws {
        try MockingDriver.withMocking(
            Self.script([MockReply(result: 909), MockReply(), MockReply(result: 910), MockReply()])
        ) {
            driver in
            do {
                let first = try OwnedDescriptor.socket(domain: 31, type: 5, protocol: 0)
                try first.close()  // consumed: its deinit does not run again
                _ = try OwnedDescriptor.socket(domain: 31, type: 5, protocol: 0)  // dropped at once: deinit closes
            }
            let closes = driver.trace.filter { $0.syscall == .close }
            #expect(closes == [MockCall(.close, [909]), MockCall(.close, [910])])
        }
    }

    @Test func systemErrorDescriptionNamesCallAndErrno() {
        let error = SystemError(syscall: .connect, errno: EBUSY)
        #expect(error.description.hasPrefix("connect failed: "))
        #expect(error.description.hasSuffix("(EBUSY)"))
        #expect(SystemError(syscall: .poll, errno: 9999).errnoName == "errno 9999")
    }
}
