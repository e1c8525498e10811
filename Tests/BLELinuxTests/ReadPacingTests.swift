import BLEHost
import Glibc
import Testing

@testable import BLELinux

/// One read per wake while packets come one at a time, draining again when they come in bursts.
@Suite struct ReadPacingTests {
    typealias Trace = DescriptorChannelTraceTests

    @Test func aSinglePacketPerWakeStopsTheReadThatOnlyReturnsEAGAIN() throws {
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
                MockReply(result: 2, output: [0x1B, 0x01]),
                .failure(EAGAIN),
                MockReply(result: 2, output: [0x1B, 0x02]),
                MockReply(result: 2, output: [0x1B, 0x03]),
                .failure(EAGAIN),
            ],
        ])
        let (recorder, trace) = try Trace.runToEnd(kernel)
        #expect(recorder.pdus == [[0x1B, 0x01], [0x1B, 0x02], [0x1B, 0x03]])
        #expect(recorder.closes == [.disconnected(reason: nil)])
        let reader = trace.drop { $0.syscall != .epollWait }
        let expected: [MockCall] = [
            MockCall(.epollWait, [908, 2, -1]),
            MockCall(.read, [907, 64]),
            MockCall(.read, [907, 64]),  // EAGAIN: one packet in this wake
            MockCall(.epollWait, [908, 2, -1]),
            MockCall(.read, [907, 64]),  // one read per wake from now on
            MockCall(.epollWait, [908, 2, -1]),
            MockCall(.read, [907, 64]),
            MockCall(.epollWait, [908, 2, -1]),
            MockCall(.read, [907, 64]),  // a hang-up drains to the end: EAGAIN, the reader stops
            MockCall(.close, [907]),
        ]
        #expect(Array(reader.prefix(expected.count)) == expected)
    }

    @Test func burstsSwitchBackToDraining() {
        var pacing = ReadPacing()
        #expect(!pacing.readsOnce, "drains until it has seen how packets come")
        pacing.woke(reads: 1, drained: true)
        var once = 0
        for _ in 1..<16 {
            if pacing.readsOnce { once += 1 }
            pacing.woke(reads: 1, drained: !pacing.readsOnce)
        }
        #expect(once == 15)
        #expect(!pacing.readsOnce, "every 16th wake drains fully to look again")
        pacing.woke(reads: 4, drained: true)
        #expect(!pacing.readsOnce)
        pacing.woke(reads: 0, drained: true)
        #expect(!pacing.readsOnce, "a wake with nothing to read says nothing about bursts")
        pacing.woke(reads: 1, drained: true)
        #expect(pacing.readsOnce)
    }
}
