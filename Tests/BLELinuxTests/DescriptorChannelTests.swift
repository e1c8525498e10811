import BLEHost
import BLETesting
import Glibc
import Synchronization
import Testing

@testable import BLELinux

/// The reader thread on a real local SEQPACKET socket pair: delivery, close, wakeup, peer hang-up.
@Suite struct DescriptorChannelTests {
    static func link(_ fd: CInt, capacity: Int = 256) throws -> DescriptorChannel {
        try DescriptorChannel(socket: OwnedDescriptor(rawValue: fd), name: "test-link", receiveCapacity: capacity)
    }

    @Test func deliversEveryPDUInOrderThenClosesOnce() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try Self.link(ours)
        let recorder = Recorder()
        try link.start(
            deliver: {
                recorder.received($0); return nil
            },
            closed: recorder.closed
        )
        let pdus: [[UInt8]] = (0..<200).map { index in
            [0x1B, 0x2A, 0x00] + Array(repeating: UInt8(index), count: index % 40)
        }
        for pdu in pdus { put(theirs, pdu) }
        #expect(eventuallyBlocking { recorder.pdus.count == pdus.count })
        #expect(recorder.pdus == pdus)
        link.close()
        // close() returns after the reader stopped, called `closed` once, and closed the descriptor.
        #expect(recorder.closes == [.closed])
        #expect(link.isFinished)
        var byte: UInt8 = 0
        #expect(eventuallyBlocking { read(theirs, &byte, 1) == 0 }, "our end is closed: the peer reads end of file")
        link.close()
        #expect(recorder.closes == [.closed], "close is idempotent")
    }

    /// `.blocking` on a real socket: PDUs queued before the reader starts come in `recvmmsg` batches, each
    /// from its own slot, and those sent one at a time after it; all in order, then the peer's hang-up.
    @Test func aBlockingReaderDeliversQueuedAndSingleMessagesInOrder() throws {
        let (ours, theirs) = socketPair()
        let link = try DescriptorChannel(
            socket: OwnedDescriptor(rawValue: ours),
            name: "test-link",
            receiveCapacity: 64,
            reads: .blocking
        )
        let recorder = Recorder()
        let pdus: [[UInt8]] = (0..<300).map { index in
            [0x1B, UInt8(index & 0xFF), UInt8(index >> 8)] + Array(repeating: UInt8(index % 251), count: index % 61)
        }
        for pdu in pdus[..<100] { put(theirs, pdu) }
        try link.start(
            deliver: {
                recorder.received($0); return nil
            },
            closed: recorder.closed
        )
        #expect(eventuallyBlocking { recorder.pdus.count == 100 })
        for pdu in pdus[100...] { put(theirs, pdu) }
        #expect(eventuallyBlocking { recorder.pdus.count == pdus.count })
        close(theirs)
        #expect(eventuallyBlocking { link.isFinished })
        #expect(recorder.pdus == pdus)
        #expect(recorder.closes == [.disconnected(reason: nil)])
    }

    @Test func closeWakesAnIdleReader() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try Self.link(ours)
        let recorder = Recorder()
        try link.start(
            deliver: {
                recorder.received($0); return nil
            },
            closed: recorder.closed
        )
        usleep(20_000)  // the reader is blocked in epoll_wait with nothing to read
        let started = ContinuousClock.now
        link.close()  // waits for the reader: it would block for good if epoll_wait were not woken
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(recorder.closes == [.closed])
        #expect(recorder.pdus.isEmpty)
    }

    @Test func peerHangUpEndsDeliveryAsDisconnected() throws {
        let (ours, theirs) = socketPair()
        let link = try Self.link(ours)
        let recorder = Recorder()
        try link.start(
            deliver: {
                recorder.received($0); return nil
            },
            closed: recorder.closed
        )
        put(theirs, [0x01, 0x02])
        close(theirs)
        #expect(eventuallyBlocking { !recorder.closes.isEmpty })
        #expect(recorder.pdus == [[0x01, 0x02]])
        #expect(recorder.closes == [.disconnected(reason: nil)])
        #expect(throws: TransportError.closed) {
            try [UInt8(1)].withTypedBytes { bytes throws(TransportError) in try link.send(bytes) }
        }
        link.close()
        #expect(recorder.closes.count == 1)
    }

    @Test func closeFromInsideADeliveryDoesNotDeadlock() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try Self.link(ours)
        let recorder = Recorder()
        // Both PDUs are queued before the reader starts: the second is there to be read, yet must not
        // be delivered once the first delivery has closed the link.
        put(theirs, [0xAA])
        put(theirs, [0xBB])
        try link.start(
            deliver: { bytes in
                recorder.received(bytes)
                link.close()  // on the reader thread: asks it to stop after this PDU
                return nil
            },
            closed: recorder.closed
        )
        #expect(eventuallyBlocking { link.isFinished })
        #expect(recorder.pdus == [[0xAA]], "nothing is delivered after close")
        #expect(recorder.closes == [.closed])
    }

    @Test func deliveryCanStopTheLinkWithAReason() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try Self.link(ours)
        let recorder = Recorder()
        try link.start(deliver: { _ in .framing("bad packet") }, closed: recorder.closed)
        put(theirs, [0x00])
        #expect(eventuallyBlocking { link.isFinished })
        #expect(recorder.closes == [.framing("bad packet")])
    }

    @Test func sendWritesWholeDatagramsWithAnOptionalPrefix() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try Self.link(ours)
        try [UInt8]([0x12, 0x34]).withTypedBytes { bytes throws(TransportError) in try link.send(bytes) }
        #expect(take(theirs) == [0x12, 0x34])
        try [UInt8]([0x03, 0x0C, 0x00]).withTypedBytes { bytes throws(TransportError) in
            try link.send(prefix: 0x01, bytes)
        }
        #expect(take(theirs) == [0x01, 0x03, 0x0C, 0x00])
        link.close()
        #expect(throws: TransportError.closed) {
            try [UInt8](repeating: 0, count: 1).withTypedBytes { bytes throws(TransportError) in try link.send(bytes) }
        }
    }

    @Test func closeBeforeStartClosesTheDescriptorAndRefusesStart() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try Self.link(ours)
        link.close()
        var byte: UInt8 = 0
        #expect(eventuallyBlocking { read(theirs, &byte, 1) == 0 })
        #expect(throws: TransportError.closed) { try link.start(deliver: { _ in nil }, closed: { _ in }) }
    }

    @Test func streamSocketsAreDrainedAcrossReads() throws {
        let (ours, theirs) = socketPair(Int32(SOCK_STREAM.rawValue))
        defer { close(theirs) }
        let link = try Self.link(ours, capacity: 16)
        let total = Mutex(0)
        let recorder = Recorder()
        try link.start(
            deliver: { bytes in
                total.withLock { $0 += bytes.count }; return nil
            },
            closed: recorder.closed
        )
        put(theirs, [UInt8](repeating: 7, count: 1000))
        #expect(eventuallyBlocking { total.withLock { $0 } == 1000 }, "a 16-byte buffer reads 1000 bytes in many reads")
        link.close()
    }
}

extension DescriptorChannelTests {
    @Test func closingTwiceWithoutStartingReturns() throws {
        let (ours, theirs) = socketPair()
        defer { close(theirs) }
        let link = try Self.link(ours)
        link.close()
        link.close()  // must not wait for a reader that never ran
        #expect(link.isFinished)
    }
}
