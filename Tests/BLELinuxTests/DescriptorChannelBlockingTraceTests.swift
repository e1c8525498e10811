import BLEHost
import BLETesting
import Dispatch
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// The `.blocking` reader against a scripted kernel: `recvmmsg` while PDUs queue up, one `recv` per PDU
/// while they come one at a time, `shutdown` to end a blocked read, and `epoll_wait` only while the
/// reader's own sends are queued.
@Suite struct DescriptorChannelBlockingTraceTests {
    typealias Trace = DescriptorChannelTraceTests

    /// The kernel's values (fcntl.h, socket.h, uapi/linux/eventpoll.h), written out: they are ABI.
    static let getFlags = 3
    static let setFlags = 4
    static let readWrite = 0x2
    static let dontWait = 0x40
    static let noSignal = 0x4000
    static let shutBoth = 2
    static let EPOLLOUT: UInt32 = 0x004
    static let modify = 3
    static let waitForOne = 0x10000

    /// The batch read: descriptor, slot size, slots, `MSG_WAITFORONE`.
    static let batch = MockCall(.recvmmsg, [907, 64, DescriptorChannel.batchSlots, waitForOne])

    /// What every blocking channel on descriptor 907 does first: clear `O_NONBLOCK`, then set up its
    /// epoll instance (908) and eventfd (909) for the times it waits to write.
    static let setUp: [MockCall] = [
        MockCall(.fcntl, [907, getFlags, 0]),
        MockCall(.fcntl, [907, setFlags, readWrite]),
        MockCall(.epollCreate, [Trace.closeOnExec]),
        MockCall(.eventfd, [0, Trace.closeOnExec | Trace.nonBlocking]),
        MockCall(.epollControl, [908, 1, 907, Int(Trace.EPOLLRDHUP | Trace.EPOLLIN), 1]),
        MockCall(.epollControl, [908, 1, 909, Int(Trace.EPOLLRDHUP | Trace.EPOLLIN), 2]),
    ]

    static func channel() throws -> DescriptorChannel {
        try DescriptorChannel(
            socket: OwnedDescriptor(rawValue: 907),
            name: "trace",
            receiveCapacity: 64,
            reads: .blocking
        )
    }

    @Test func aBatchOfOneSwitchesToOneRecvPerPDUAndAnEndOfFileIsADisconnection() throws {
        let kernel = Trace.script([
            .fcntl: [MockReply(result: Self.readWrite | Trace.nonBlocking)],
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .recvmmsg: [.received([[0x1B, 0x2A, 0x00]])],
            .recv: [
                .failure(EINTR),
                MockReply(result: 2, output: [0x0A, 0x0B]),
                MockReply(result: 0),
            ],
        ])
        let (recorder, trace) = try Trace.runToEnd(kernel, reads: .blocking)
        #expect(recorder.pdus == [[0x1B, 0x2A, 0x00], [0x0A, 0x0B]])
        #expect(recorder.closes == [.disconnected(reason: nil)])
        let expected =
            Self.setUp + [
                Self.batch,  // one PDU had queued up: they come one at a time
                MockCall(.recv, [907, 64, 0]),  // EINTR: the same read again
                MockCall(.recv, [907, 64, 0]),
                MockCall(.recv, [907, 64, 0]),  // end of file: the peer has gone
                MockCall(.close, [907]),
            ]
        #expect(Array(trace.prefix(expected.count)) == expected)
        #expect(Set(trace.dropFirst(expected.count)) == [MockCall(.close, [908]), MockCall(.close, [909])])
    }

    /// PDUs that queue up are taken a batch at a time and delivered in order; the reader stays with
    /// batches while they bring more than one, and an empty message (what `recvmmsg` gives once the peer
    /// has gone) ends the link after the PDUs before it.
    @Test func queuedPDUsComeInBatchesInOrderUntilAnEmptyMessageEndsTheLink() throws {
        let kernel = Trace.script([
            .fcntl: [MockReply(result: Self.readWrite | Trace.nonBlocking)],
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .recvmmsg: [
                .received([[0x1B, 0x01], [0x1B, 0x02], [0x1B, 0x03]]),
                .failure(EINTR),
                .received([[0x1B, 0x04], [], []]),
            ],
        ])
        let (recorder, trace) = try Trace.runToEnd(kernel, reads: .blocking)
        #expect(recorder.pdus == [[0x1B, 0x01], [0x1B, 0x02], [0x1B, 0x03], [0x1B, 0x04]])
        #expect(recorder.closes == [.disconnected(reason: nil)])
        let expected = Self.setUp + [Self.batch, Self.batch, Self.batch, MockCall(.close, [907])]
        #expect(Array(trace.prefix(expected.count)) == expected)
    }

    /// A PDU longer than a slot is cut to the slot, as `recv` into a buffer of that size would cut it.
    @Test func aBatchSlotHoldsAsMuchAsASingleRead() throws {
        let kernel = Trace.script([
            .fcntl: [MockReply(result: Self.readWrite | Trace.nonBlocking)],
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .recvmmsg: [.received([Array(repeating: 0x11, count: 100), [0x1B, 0x05]]), .received([[]])],
        ])
        let (recorder, _) = try Trace.runToEnd(kernel, reads: .blocking)
        #expect(recorder.pdus == [Array(repeating: 0x11, count: 64), [0x1B, 0x05]])
    }

    /// A `recv` that blocks until the socket is shut down, as the kernel's does.
    final class BlockedRecv: Sendable {
        private let shutDown = DispatchSemaphore(value: 0)
        let entered = Atomic<Bool>(false)

        func reply(_ call: MockCall) -> MockReply {
            switch call.syscall {
            case .fcntl: return MockReply(result: DescriptorChannelBlockingTraceTests.readWrite | Trace.nonBlocking)
            case .epollCreate: return MockReply(result: 908)
            case .eventfd: return MockReply(result: 909)
            case .recvmmsg:
                entered.store(true, ordering: .sequentiallyConsistent)
                // Bounded, so that a channel that never shuts down fails the test instead of hanging it.
                return shutDown.wait(timeout: .now() + .seconds(5)) == .success
                    ? .received([[]]) : .failure(ETIMEDOUT)
            case .shutdown:
                shutDown.signal()
                return MockReply()
            default: return MockReply()
            }
        }
    }

    @Test func closeEndsABlockedRecvWithShutdownAndTheReasonIsClosed() throws {
        let kernel = BlockedRecv()
        let trace = try MockingDriver.withMocking({ kernel.reply($0) }) { driver in
            let recorder = Recorder()
            do {
                let link = try Self.channel()
                try link.start(deliver: { _ in nil }, closed: recorder.closed)
                #expect(eventuallyBlocking { kernel.entered.load(ordering: .sequentiallyConsistent) })
                link.close()
                #expect(link.isFinished, "close returns once the reader has stopped")
            }
            #expect(recorder.closes == [.closed])
            return driver.trace
        }
        #expect(Array(trace.prefix(Self.setUp.count + 1)) == Self.setUp + [Self.batch])
        #expect(trace.contains(MockCall(.write, [909, 8], bytes: [1, 0, 0, 0, 0, 0, 0, 0])))
        #expect(trace.contains(MockCall(.shutdown, [907, Self.shutBoth])))
        #expect(
            trace.filter { $0.syscall == .recv || $0.syscall == .recvmmsg }.count == 1,
            "one blocked read, ended by the shutdown"
        )
        #expect(trace.contains(MockCall(.close, [907])))
    }

    /// The reader answers a PDU while the socket is full: the answer is queued, the reader waits in
    /// `epoll_wait` for room, writes it, reads what came meanwhile without waiting, and goes back to
    /// `recv`.
    @Test func theReadersOwnSendThatFindsTheSocketFullIsWrittenWhenEpollSaysThereIsRoom() throws {
        let kernel = Trace.script([
            .fcntl: [MockReply(result: Self.readWrite | Trace.nonBlocking)],
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .recvmmsg: [.received([[0x0A]])],  // blocking: a request
            .recv: [
                .failure(EAGAIN),  // MSG_DONTWAIT after the flush: nothing more
                MockReply(result: 0),  // blocking again: the peer has gone
            ],
            .send: [.failure(EAGAIN), MockReply(result: 1)],
            .epollWait: [MockReply(result: 1, output: Trace.event(Self.EPOLLOUT, token: 1))],
        ])
        let trace = try MockingDriver.withMocking(kernel) { driver in
            let recorder = Recorder()
            do {
                let link = try Self.channel()
                try link.start(
                    deliver: { bytes in
                        recorder.received(bytes)
                        try? link.send(UnsafeRawBufferPointer(rebasing: bytes[0..<1]))
                        return nil
                    },
                    closed: recorder.closed
                )
                #expect(eventuallyBlocking { link.isFinished })
            }
            #expect(recorder.pdus == [[0x0A]])
            #expect(recorder.closes == [.disconnected(reason: nil)])
            return driver.trace
        }
        let readable = Int(Trace.EPOLLRDHUP | Trace.EPOLLIN)
        let expected =
            Self.setUp + [
                Self.batch,
                MockCall(.send, [907, 1, Self.noSignal | Self.dontWait], bytes: [0x0A]),  // full: queued
                MockCall(.epollControl, [908, Self.modify, 907, readable | Int(Self.EPOLLOUT), 1]),
                MockCall(.epollWait, [908, 2, -1]),
                MockCall(.send, [907, 1, Self.noSignal | Self.dontWait], bytes: [0x0A]),  // room: written
                MockCall(.epollControl, [908, Self.modify, 907, readable, 1]),
                MockCall(.recv, [907, 64, Self.dontWait]),
                MockCall(.recv, [907, 64, 0]),
                MockCall(.close, [907]),
            ]
        #expect(Array(trace.prefix(expected.count)) == expected)
    }
}
