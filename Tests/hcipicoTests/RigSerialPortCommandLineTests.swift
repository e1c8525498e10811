import Foundation
import RigJournal
import Testing

/// A rig with a Pico on a serial port beside two simulated ones, for a minute: its cable pulled mid-run
/// and between runs, and plugged in again.
@Suite struct RigSerialPortCommandLineTests {
    static func config(port: String) -> String {
        """
        [rig]
        name = "mixed"
        journal = "mixed.sqlite"
        [[device]]
        name = "cabled"
        transport = "tty:\(port)"
        script = "CV.mscr"
        every = "6s"
        [[device]]
        name = "cv"
        transport = "sim"
        script = "CV.mscr"
        schedule = "continuous"
        realtime = false
        [[device]]
        name = "ca"
        transport = "sim"
        script = "CA.mscr"
        schedule = "continuous"
        """
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test func aCabledPicoBesideTwoSimulatorsSurvivesItsCablePulledMidRunAndBetweenRuns() async throws {
        let directory = try RigCommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory, realTime: true)
        defer { _ = pico.stop() }
        try Self.config(port: pico.path).write(
            to: directory.appendingPathComponent("rig.toml"),
            atomically: true,
            encoding: .utf8
        )
        let started = ContinuousClock.now
        let rig = try CommandProcess(["rig", "rig.toml"], in: directory)
        let journalPath = directory.appendingPathComponent("mixed.sqlite").path
        func cabled() -> [RunSummary] {
            ((try? Journal.openForReading(path: journalPath).runs()) ?? []).filter { $0.device == "cabled" }
                .sorted { $0.id < $1.id }
        }

        // Mid-run: the run ends incomplete within a second, with what came kept.
        #expect(await rig.waitAsync { cabled().contains { $0.state == "running" && $0.packages >= 20 } })
        let pulled = ContinuousClock.now
        #expect(pico.unplug())
        #expect(await rig.waitAsync(until: { cabled().contains { $0.reason?.contains("device gone") == true } }))
        let ended = Self.seconds(ContinuousClock.now - pulled)
        #expect(ended < 1, "the incomplete run reached the journal \(ended) s after the cable was pulled")
        try await Task.sleep(for: .seconds(2))
        let retries = rig.standardError.split(separator: "\n").filter {
            $0.contains("cabled:") && $0.contains("retrying in")
        }
        #expect(!retries.isEmpty, "\(rig.standardError)")
        let backoff =
            retries.last.flatMap { line in
                line.split(separator: "retrying in ").last.flatMap { Double($0.dropLast()) }
            } ?? 0
        let runsBefore = cabled().count
        let plugged = ContinuousClock.now
        #expect(pico.plug())
        #expect(await rig.waitAsync { cabled().count > runsBefore })
        let restarted = Self.seconds(ContinuousClock.now - plugged)
        #expect(restarted <= backoff + 2, "the next run started \(restarted) s after the plug, backoff \(backoff) s")

        // Between runs: once a run has completed and the device waits for its next slot.
        #expect(await rig.waitAsync { cabled().last?.state == "complete" })
        #expect(pico.unplug())
        try await Task.sleep(for: .seconds(1))
        #expect(pico.plug())

        let left = 60 - Self.seconds(ContinuousClock.now - started)
        if left > 0 { try await Task.sleep(for: .seconds(left)) }
        rig.send(SIGTERM)
        let end = await rig.finishAsync()
        #expect(end.status == 143, "\(rig.standardError)")

        let journal = try Journal.openForReading(path: journalPath)
        #expect(try journal.integrityCheck() == ["ok"])
        let runs = try journal.runs()
        for run in runs {
            var indices: [Int] = []
            try journal.forEachPackage(of: run.id) { indices.append($0.index) }
            #expect(indices == Array(0..<run.packages), "run \(run.id): \(indices.count) of \(run.packages)")
        }
        let byDevice = Dictionary(grouping: runs, by: \.device)
        for device in ["cabled", "cv", "ca"] {
            let done = byDevice[device, default: []].filter { $0.state == "complete" }
            #expect(done.count >= 2, "\(device): \(done.count) complete runs")
        }
        let cabledRuns = byDevice["cabled", default: []]
        let gone = cabledRuns.filter { $0.reason?.contains("device gone") == true }
        #expect(gone.count == 1, "\(cabledRuns.map { ($0.state, $0.reason) })")
        #expect(gone.allSatisfy { $0.cell?.hasPrefix("cell state unknown") == true })
        // Every other run of the cabled Pico completed with every point, or was stopped by SIGTERM.
        #expect(
            cabledRuns.allSatisfy {
                $0.reason?.contains("device gone") == true || $0.reason?.hasPrefix("stopped") == true
                    || ($0.state == "complete" && $0.packages == 201)
            },
            "\(cabledRuns.map { ($0.state, $0.packages, $0.reason) })"
        )
        // The run after the plug found the script the pull left running, and tidied up.
        #expect(cabledRuns.contains { $0.foundAtConnect?.contains("aborted") == true })
    }
}
