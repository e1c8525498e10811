import BLEHost
import BLETesting
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// The reader thread against a scripted kernel: the exact calls it makes, in order.
@Suite struct DescriptorChannelTraceTests {
    /// Answers each system call from its own queue of replies (then succeeds with 0).
    static func script(_ replies: [Syscall: [MockReply]]) -> @Sendable (MockCall) -> MockReply {
        let queues = Mutex(replies)
        return { call in
            queues.withLock { $0[call.syscall]?.isEmpty == false ? $0[call.syscall]!.removeFirst() : MockReply() }
        }
    }

    /// The kernel's values (uapi/linux/eventpoll.h, fcntl.h), written out: they are ABI.
    static let EPOLLIN: UInt32 = 0x001
    static let EPOLLERR: UInt32 = 0x008
    static let EPOLLHUP: UInt32 = 0x010
    static let EPOLLRDHUP: UInt32 = 0x2000
    static let closeOnExec = 0x80000
    static let nonBlocking = 0x800

    /// One `epoll_event` (packed on x86_64: events, then the 64-bit token).
    static func event(_ events: UInt32, token: UInt64) -> [UInt8] { le(events) + le(token) }

    /// Runs a `DescriptorChannel` on descriptor 907 against `kernel` until its reader has ended; returns what
    /// it delivered and every system call made, the link's own clean-up included.
    static func runToEnd(
        _ kernel: @escaping @Sendable (MockCall) -> MockReply,
        reads: DescriptorChannel.ReadMode = .polled,
        holdoff: ReadHoldoff? = nil
    ) throws -> (recorder: Recorder, trace: [MockCall]) {
        try MockingDriver.withMocking(kernel) { driver in
            let recorder = Recorder()
            do {
                let link = try DescriptorChannel(
                    socket: OwnedDescriptor(rawValue: 907),
                    name: "trace",
                    receiveCapacity: 64,
                    reads: reads,
                    holdoff: holdoff
                )
                try link.start(
                    deliver: {
                        recorder.received($0)
                        return nil
                    },
                    closed: recorder.closed
                )
                #expect(eventuallyBlocking { link.isFinished })
            }
            return (recorder, driver.trace)
        }
    }

    @Test func readerDrainsRetriesAndStopsOnHangUp() throws {
        let kernel = Self.script([
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .epollWait: [
                MockReply(result: 1, output: Self.event(Self.EPOLLIN, token: 1)),
                MockReply(result: 1, output: Self.event(Self.EPOLLHUP, token: 1)),
            ],
            .read: [
                MockReply(result: 3, output: [0x1B, 0x2A, 0x00]),
                .failure(EINTR),
                MockReply(result: 2, output: [0x0A, 0x0B]),
                .failure(EAGAIN),
                .failure(EAGAIN),
            ],
        ])
        let (recorder, trace) = try Self.runToEnd(kernel)
        #expect(recorder.pdus == [[0x1B, 0x2A, 0x00], [0x0A, 0x0B]])
        #expect(recorder.closes == [.disconnected(reason: nil)])
        let expected: [MockCall] = [
            MockCall(.epollCreate, [Self.closeOnExec]),
            MockCall(.eventfd, [0, Self.closeOnExec | Self.nonBlocking]),
            MockCall(.epollControl, [908, 1, 907, Int(Self.EPOLLRDHUP | Self.EPOLLIN), 1]),
            MockCall(.epollControl, [908, 1, 909, Int(Self.EPOLLRDHUP | Self.EPOLLIN), 2]),
            MockCall(.epollWait, [908, 2, -1]),
            MockCall(.read, [907, 64]),
            MockCall(.read, [907, 64]),  // EINTR: the same read again
            MockCall(.read, [907, 64]),
            MockCall(.read, [907, 64]),  // EAGAIN: drained, back to epoll_wait
            MockCall(.epollWait, [908, 2, -1]),
            MockCall(.read, [907, 64]),  // EAGAIN after a hang-up: the reader stops
            MockCall(.close, [907]),
        ]
        #expect(Array(trace.prefix(expected.count)) == expected)
        // Then the link's own epoll instance and eventfd, when it goes away.
        #expect(Set(trace.dropFirst(expected.count)) == [MockCall(.close, [908]), MockCall(.close, [909])])
    }

    @Test func readErrorEndsDeliveryWithTheErrno() throws {
        let kernel = Self.script([
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .epollWait: [MockReply(result: 1, output: Self.event(Self.EPOLLIN | Self.EPOLLERR, token: 1))],
            .read: [.failure(ECONNRESET)],
        ])
        let unexpected = Self.script([
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .epollWait: [MockReply(result: 1, output: Self.event(Self.EPOLLIN, token: 1))],
            .read: [.failure(ENOMEM)],
        ])
        for (kernel, reason) in [
            (kernel, TransportError.disconnected(reason: nil)), (unexpected, .system(syscall: "read", errno: ENOMEM)),
        ] {
            try MockingDriver.withMocking(kernel) { _ in
                let recorder = Recorder()
                do {
                    let link = try DescriptorChannel(
                        socket: OwnedDescriptor(rawValue: 907),
                        name: "trace",
                        receiveCapacity: 64
                    )
                    try link.start(deliver: { _ in nil }, closed: recorder.closed)
                    #expect(eventuallyBlocking { link.isFinished })
                }
                #expect(recorder.closes == [reason])
            }
        }
    }
}
