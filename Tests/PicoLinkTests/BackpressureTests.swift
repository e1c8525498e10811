import BLETesting
import Foundation
import PicoSimulator
import Testing

@testable import PicoLink

@Suite struct BackpressureTests {
    /// Waits (bounded) until the device has ended its script and `overflowed` packages were counted.
    static func waitUntilSent(_ link: SimulatedPicoSession, _ run: PicoRun, overflowed: Int) async throws {
        let sent = await eventually(.seconds(30)) {
            !link.peripheral.pico.isRunningScript && run.events.overflowed >= overflowed
        }
        try #require(sent, "the device did not finish (\(run.events.overflowed) overflowed)")
    }

    @Test func slowConsumerBoundsTheBacklogAndLosesNothing() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        // 20 000 packages of (time, current) as fast as the simulator can make them.
        let script =
            "var c\nvar t\ncell_on\ntimer_start\nmeas_loop_ca p c 500m 1m 20\ntimer_get t\n"
            + "pck_start\npck_add t\npck_add c\npck_end\nendloop\non_finished:\ncell_off\n"
        let run = try await link.session.run(text: "var p\n" + script)
        // The consumer starts only once the whole run waits in the backlog, ahead of it.
        let queued = await eventually(.seconds(30)) { run.events.backlog?.peak == 20_000 }
        try #require(queued, "the backlog's peak stayed at \(run.events.backlog?.peak ?? 0)")
        var indices: [Int] = []
        var ended = false
        for try await event in run.events {
            switch event {
            case .package(let package): indices.append(package.index)
            case .ended: ended = true
            default: break
            }
        }
        #expect(ended)
        #expect(indices == Array(0..<20_000))
        #expect(20_000 <= EventBacklog.defaultLimit)
        #expect(run.events.overflowed == 0)
    }

    /// A consumer that stops reading while the device streams: the reader thread keeps draining the
    /// link (an ATT request is answered meanwhile), and every package is either delivered or counted.
    @Test func aStalledConsumerNeverStallsTheLinkAndEveryPackageIsAccountedFor() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let script =
            "var p\nvar c\nvar t\ncell_on\ntimer_start\nmeas_loop_ca p c 500m 1m 20\ntimer_get t\n"
            + "pck_start\npck_add t\npck_add c\npck_end\nendloop\non_finished:\ncell_off\n"
        let run = try await link.session.run(try PicoScript(script), title: "ca", backlogLimit: 500)
        // Not consuming: wait until the device has sent its whole run.
        try await Self.waitUntilSent(link, run, overflowed: 19_500)
        // The link still answers while nobody reads the run: a read of ModemOut goes through.
        let modemOut = try await link.session.vsp!.client.read(link.session.vsp!.writer.modemOutHandle)
        #expect(modemOut == [1])
        var indices: [Int] = []
        var reported: Int?
        var endedWith: Int?
        for try await event in run.events {
            switch event {
            case .package(let package): indices.append(package.index)
            case .overflowed(let count): reported = count
            case .ended(_, let packages): endedWith = packages
            default: break
            }
        }
        #expect(indices == Array(0..<500), "the first 500 queued, in order")
        #expect(reported == 19_500)
        #expect(endedWith == 20_000)
        #expect(indices.count + (reported ?? 0) == 20_000)
    }

    /// The consumer stops for 10 s while the device streams in real time at a package a millisecond:
    /// the link keeps answering (a ModemOut read every second, each well within a connection's
    /// patience), and afterwards every package is either delivered, in order, or counted as overflowed,
    /// and the count is reported before the end.
    @Test func aConsumerStalledForTenSecondsLeavesNothingUncounted() async throws {
        let link = try await SimulatedPicoSession.make(configuration: SimulatedPicoConfiguration())
        defer { link.close() }
        let script =
            "var p\nvar c\ncell_on\nmeas_loop_ca p c 500m 1m 11\npck_start\npck_add c\npck_end\nendloop\n"
            + "on_finished:\ncell_off\n"
        let run = try await link.session.run(try PicoScript(script), title: "ca", backlogLimit: 4_000)
        for _ in 0..<10 {
            try await Task.sleep(for: .seconds(1))  // the stalled consumer: nothing reads `run.events`
            // A reader parked behind the stalled consumer would answer no read before the consumer reads
            // again, after this loop: the read would end in ATT's timeout and throw. That it returns at
            // all, while nothing reads the events, is what shows the reader drains.
            let modemOut = try await link.session.vsp!.client.read(link.session.vsp!.writer.modemOutHandle)
            #expect(modemOut == [1])
        }
        var indices: [Int] = []
        var reported = 0
        var endedWith: Int?
        for try await event in run.events {
            switch event {
            case .package(let package): indices.append(package.index)
            case .overflowed(let count): reported = count
            case .ended(_, let packages): endedWith = packages
            default: break
            }
        }
        let total = try #require(endedWith)
        #expect(total >= 10_000, "the device streamed \(total) packages")
        #expect(reported > 0 && reported == run.events.overflowed)
        #expect(indices.count + reported == total)
        #expect(Array(indices.prefix(4_000)) == Array(0..<4_000), "the first 4000 queued, in order")
        #expect(indices == indices.sorted())
    }

    @Test func aRecordingThatFellBehindIsNeverComplete() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let script =
            "var p\nvar c\ncell_on\nmeas_loop_ca p c 500m 1m 2\npck_start\npck_add c\npck_end\nendloop\n"
            + "on_finished:\ncell_off\n"
        let run = try await link.session.run(try PicoScript(script), title: "ca", backlogLimit: 100)
        try await Self.waitUntilSent(link, run, overflowed: 1_900)
        let end = try await RunRecorder(sinks: []).record(run)
        #expect(
            end
                == RunEnd(
                    complete: false,
                    reason: "1900 packages overflowed: the recording fell too far behind the device",
                    packages: 100,
                    endTime: end.endTime
                )
        )
    }
}
