import Glibc
import Testing

@testable import BLELinux

/// A polled reader pauses after a short read only while the device streams.
@Suite struct ReadHoldoffTests {
    typealias Trace = DescriptorChannelTraceTests

    @Test func aUARTsPauseIsSixtyFourBytesOnTheLine() {
        let holdoff = ReadHoldoff(baudRate: 230_400)
        #expect(holdoff.shortRead == 64)
        #expect(holdoff.pause == 2_777_777)
        #expect(ReadHoldoff(baudRate: 115_200).pause == 5_555_555)
    }

    @Test func theFirstReadAfterAQuietSpellIsNeverHeldBack() {
        var holdoff = ReadHoldoff(pause: .milliseconds(3), shortRead: 64)
        var pauses: [Bool] = []
        for (bytes, at) in [
            (20, 1_000_000_000),  // nothing came before it
            (20, 1_001_000_000),  // 1 ms later: streaming
            (20, 1_004_100_000),  // after a pause: still streaming
            (20, 1_010_200_000),  // 6.1 ms later: a new reply, read at once
            (64, 1_011_000_000),  // a full read needs no pause
            (0, 1_011_500_000),  // a wake that read nothing
        ] as [(Int, UInt64)] {
            pauses.append(holdoff.woke(bytes: bytes, at: at))
        }
        #expect(pauses == [false, true, true, false, false, false])
    }

    @Test func theReaderWaitsOnItsWakeUpDescriptorBetweenShortReads() throws {
        let kernel = Trace.script([
            .epollCreate: [MockReply(result: 908)],
            .eventfd: [MockReply(result: 909)],
            .epollWait: [
                MockReply(result: 1, output: Trace.event(Trace.EPOLLIN, token: 1)),
                MockReply(result: 1, output: Trace.event(Trace.EPOLLIN, token: 1)),
                MockReply(result: 1, output: Trace.event(Trace.EPOLLIN, token: 1)),
                MockReply(result: 1, output: Trace.event(Trace.EPOLLHUP, token: 1)),
            ],
            .read: [
                MockReply(result: 2, output: [0x50, 0x0A]),
                .failure(EAGAIN),
                MockReply(result: 2, output: [0x50, 0x0A]),
                MockReply(result: 2, output: [0x50, 0x0A]),
                .failure(EAGAIN),
            ],
            .poll: [MockReply(result: 0), MockReply(result: 0)],
        ])
        let (recorder, trace) = try Trace.runToEnd(kernel, holdoff: ReadHoldoff(pause: .seconds(5), shortRead: 64))
        #expect(recorder.pdus == [[0x50, 0x0A], [0x50, 0x0A], [0x50, 0x0A]])
        #expect(recorder.closes == [.disconnected(reason: nil)])
        let reader = trace.drop { $0.syscall != .epollWait }.map(\.syscall)
        let expected: [Syscall] = [
            .epollWait, .read, .read,  // the first wake: no pause
            .epollWait, .read, .poll,  // streaming: a pause before the next wait
            .epollWait, .read, .poll,
            .epollWait, .read, .close,  // a hang-up: the reader stops without a pause
        ]
        #expect(Array(reader.prefix(expected.count)) == expected)
    }
}
