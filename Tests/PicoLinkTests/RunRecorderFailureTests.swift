import BLETesting
import PicoLink
import PicoSimulator
import Synchronization
import Testing

/// A sink that cannot write ends the recording honestly: never `complete`, the others finished with
/// the reason, the failure thrown.
@Suite struct RunRecorderFailureTests {
    /// A sink whose writes fail from the `failAt`-th package on (an injected failing file layer).
    final class FailingSink: SampleSink {
        let failAt: Int
        /// Packages written, read by the test while the recorder writes.
        private let count = Atomic<Int>(0)
        var written: Int { count.load(ordering: .relaxed) }
        var ends: [RunEnd] = []
        var syncs = 0

        init(failAt: Int) { self.failAt = failAt }

        func begin(_ run: RunInfo) throws(SinkError) {}

        func write(_ package: PicoPackage) throws(SinkError) {
            guard written < failAt else { throw SinkError(path: "full.csv", operation: "write", errno: 28) }
            count.add(1, ordering: .relaxed)
        }

        func finish(_ end: RunEnd) throws(SinkError) { ends.append(end) }

        func sync() throws(SinkError) { syncs += 1 }
    }

    @Test func aWriteFailureStopsTheRecordingAndIsNeverComplete() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let failing = FailingSink(failAt: 10)
        let other = FailingSink(failAt: .max)
        let recorder = RunRecorder(sinks: [failing, other], syncPolicy: .package)
        let run = try await link.session.run(text: CVScript.text, title: "cv")
        await #expect(throws: SinkError(path: "full.csv", operation: "write", errno: 28)) {
            try await recorder.record(run)
        }
        #expect(other.ends.count == 1 && other.ends[0].complete == false)
        #expect(other.ends[0].reason?.hasPrefix("could not write output: full.csv: write failed") == true)
        #expect(other.written == 10, "the recording stops at the failing package")
        #expect(other.syncs >= 10, "sync policy package: one sync per package")
        _ = try? await link.session.abort()
    }

    @Test func abandonFinishesTheSinksOnceFromAnotherThread() async throws {
        let link = try await SimulatedPicoSession.make(configuration: SimulatedPicoConfiguration())
        defer { link.close() }
        let sink = FailingSink(failAt: .max)
        let recorder = RunRecorder(sinks: [sink])
        let run = try await link.session.run(text: CVScript.text, title: "cv")
        let recording = Task { (try? await recorder.record(run)) ?? RunEnd(complete: true, packages: -1) }
        #expect(await eventually(.seconds(30)) { sink.written > 0 }, "the recording is under way")
        recorder.abandon("interrupted (SIGTERM); second signal")
        _ = try? await link.session.abort()
        let end = await recording.value
        #expect(
            sink.ends == [
                RunEnd(
                    complete: false,
                    reason: "interrupted (SIGTERM); second signal",
                    packages: end.packages,
                    endTime: sink.ends.first?.endTime,
                    cell: .unknown("the program had to end at once, before the cell could be switched off")
                )
            ]
        )
    }
}

enum CVScript {
    static let text = """
        e
        var c
        var p
        set_pgstat_chan 0
        set_pgstat_mode 2
        set_max_bandwidth 200
        set_range ba 100u
        set_e -500m
        cell_on
        meas_loop_cv p c -500m -500m 500m 10m 100m
          pck_start
          pck_add p
          pck_add c
          pck_end
        endloop
        on_finished:
        cell_off

        """
}
