import Foundation
import RigJournal
import Testing

/// A rig with Picos on serial ports beside two simulated ones, for a minute: one cable pulled mid-run,
/// another between runs, each plugged in again. (`Bench uart` times the pull and the plug.)
@Suite struct RigSerialPortCommandLineTests {
    /// Each cabled Pico's `max_failures` is out of reach: each connect while a cable is out counts as a
    /// failure, and after `max_failures` (5 by default) a slow machine could make the rig wait
    /// `failure_backoff` (5 min) before the next try.
    static func config(midRun: String, betweenRuns: String) -> String {
        """
        [rig]
        name = "mixed"
        journal = "mixed.sqlite"
        [[device]]
        name = "cabled"
        transport = "tty:\(midRun)"
        script = "slow-ca.mscr"
        schedule = "continuous"
        max_failures = 1000
        [[device]]
        name = "cabled-2"
        transport = "tty:\(betweenRuns)"
        script = "short-ca.mscr"
        every = "12s"
        max_failures = 1000
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

    /// A chronoamperometry of `points` points 100 ms apart.
    static func ca(points: Int) -> String {
        """
        var p
        var c
        set_pgstat_mode 2
        set_range ba 50u
        set_e 200m
        cell_on
        meas_loop_ca p c 200m 100m \(points * 100)m
          pck_start
          pck_add p
          pck_add c
          pck_end
        endloop
        on_finished:
          cell_off

        """
    }

    @Test func cabledPicosBesideTwoSimulatorsSurviveTheirCablesPulledMidRunAndBetweenRuns() async throws {
        let directory = try RigCommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let midRun = try PseudoTerminalPico(in: directory, name: "pico-1", realTime: true)
        defer { _ = midRun.stop() }
        let betweenRuns = try PseudoTerminalPico(in: directory, name: "pico-2", realTime: true)
        defer { _ = betweenRuns.stop() }
        // 900 points (90 s): the script a pull leaves running is still running when the rig is back,
        // however slow a loaded machine makes the steps before.
        try Self.ca(points: 900).write(
            to: directory.appendingPathComponent("slow-ca.mscr"),
            atomically: true,
            encoding: .utf8
        )
        try Self.ca(points: 20).write(
            to: directory.appendingPathComponent("short-ca.mscr"),
            atomically: true,
            encoding: .utf8
        )
        try Self.config(midRun: midRun.path, betweenRuns: betweenRuns.path).write(
            to: directory.appendingPathComponent("rig.toml"),
            atomically: true,
            encoding: .utf8
        )
        let started = ContinuousClock.now
        let rig = try CommandProcess(["rig", "rig.toml"], in: directory)
        let journalPath = directory.appendingPathComponent("mixed.sqlite").path
        func runs(of device: String) -> [RunSummary] {
            ((try? Journal.openForReading(path: journalPath).runs()) ?? []).filter { $0.device == device }
                .sorted { $0.id < $1.id }
        }

        // Mid-run: the run ends incomplete, with what came kept; the rig retries until the cable is back
        // (how soon each happens is `Bench uart`'s to measure).
        #expect(await rig.waitAsync { runs(of: "cabled").contains { $0.state == "running" && $0.packages >= 20 } })
        #expect(midRun.unplug())
        #expect(
            await rig.waitAsync(until: { runs(of: "cabled").contains { $0.reason?.contains("device gone") == true } })
        )
        #expect(
            await rig.waitAsync { rig.standardError.contains("cabled: no serial device \(midRun.path)") },
            "\(rig.standardError)"
        )
        let runsBefore = runs(of: "cabled").count
        #expect(midRun.plug())
        #expect(await rig.waitAsync { runs(of: "cabled").count > runsBefore })

        // Between runs: just after a run of the second has completed (a 2 s run every 12 s: 10 s between
        // runs), while it waits for its next slot; the next run starts on the port plugged in again.
        let completed = runs(of: "cabled-2").filter { $0.state == "complete" }.count
        #expect(
            await rig.waitAsync { runs(of: "cabled-2").filter { $0.state == "complete" }.count > completed },
            "\(runs(of: "cabled-2").map { ($0.state, $0.packages, $0.reason) }): \(rig.standardError)"
        )
        let slotsBefore = runs(of: "cabled-2").count
        #expect(betweenRuns.unplug())
        try await Task.sleep(for: .seconds(1))
        #expect(betweenRuns.plug())
        #expect(await rig.waitAsync { runs(of: "cabled-2").count > slotsBefore }, "\(rig.standardError)")

        let left = .seconds(60) - (ContinuousClock.now - started)
        if left > .zero { try await Task.sleep(for: left) }
        rig.send(SIGTERM)
        let end = await rig.finishAsync()
        #expect(end.status == 143, "\(rig.standardError)")

        let journal = try Journal.openForReading(path: journalPath)
        #expect(try journal.integrityCheck() == ["ok"])
        let all = try journal.runs()
        for run in all {
            var indices: [Int] = []
            try journal.forEachPackage(of: run.id) { indices.append($0.index) }
            #expect(indices == Array(0..<run.packages), "run \(run.id): \(indices.count) of \(run.packages)")
        }
        let byDevice = Dictionary(grouping: all, by: \.device)
        for (device, least) in [("cabled-2", 3), ("cv", 2), ("ca", 2)] {
            let done = byDevice[device, default: []].filter { $0.state == "complete" }
            #expect(done.count >= least, "\(device): \(done.count) complete runs")
        }
        let cabled = byDevice["cabled", default: []]
        let gone = cabled.filter { $0.reason?.contains("device gone") == true }
        #expect(gone.count == 1, "\(cabled.map { ($0.state, $0.reason) })")
        #expect(gone.allSatisfy { $0.cell?.hasPrefix("cell state unknown") == true })
        // The run after the plug found the script the pull left running, and tidied up.
        #expect(
            cabled.contains { $0.foundAtConnect?.contains("aborted") == true },
            "\(cabled.map(\.foundAtConnect)): \(rig.standardError)"
        )
        // Every other run completed with every point, or was stopped by SIGTERM; pulled between runs,
        // the second Pico lost none.
        let cabled2 = byDevice["cabled-2", default: []]
        #expect(
            (cabled + cabled2).allSatisfy {
                $0.reason?.contains("device gone") == true || $0.reason?.hasPrefix("stopped") == true
                    || ($0.state == "complete" && $0.packages == ($0.device == "cabled" ? 900 : 20))
            },
            "\((cabled + cabled2).map { ($0.device, $0.state, $0.packages, $0.reason) })"
        )
        #expect(!cabled2.contains { $0.reason?.contains("device gone") == true })
    }

    /// A Pico whose cable comes back on another port is found there by its serial number; a Pico that
    /// answers with another serial number than the config's is never measured under that name.
    @Test func aPicoBackOnAnotherPortIsFoundByItsSerialNumberAndAnotherPicoIsNotMeasured() async throws {
        let directory = try RigCommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let portB = directory.appendingPathComponent("port-b").path
        let moving = try PseudoTerminalPico(
            in: directory,
            name: "port-a",
            realTime: true,
            extra: ["--serial-number", "ES4SN1", "--replug-as", portB]
        )
        defer { _ = moving.stop() }
        let other = try PseudoTerminalPico(in: directory, name: "port-c", extra: ["--serial-number", "ES4SN2"])
        defer { _ = other.stop() }
        try Self.ca(points: 20).write(
            to: directory.appendingPathComponent("short-ca.mscr"),
            atomically: true,
            encoding: .utf8
        )
        let config = """
            [rig]
            name = "moved"
            journal = "moved.sqlite"
            [[device]]
            name = "moving"
            transport = "tty:\(moving.path)"
            serial_number = "ES4SN1"
            search_ports = ["\(directory.path)/port-*"]
            script = "short-ca.mscr"
            every = "3s"
            max_failures = 1000
            [[device]]
            name = "wrong"
            transport = "tty:\(other.path)"
            serial_number = "ES4SN9"
            script = "short-ca.mscr"
            schedule = "continuous"
            """
        try config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        let rig = try CommandProcess(["rig", "rig.toml"], in: directory)
        let journalPath = directory.appendingPathComponent("moved.sqlite").path
        func runs(of device: String) -> [RunSummary] {
            ((try? Journal.openForReading(path: journalPath).runs()) ?? []).filter { $0.device == device }
        }
        #expect(await rig.waitAsync { runs(of: "moving").contains { $0.state == "complete" } }, "\(rig.standardError)")
        #expect(moving.unplug())
        let completeBefore = runs(of: "moving").filter { $0.state == "complete" }.count
        moving.process.send(SIGUSR2)
        #expect(
            await rig.waitAsync {
                rig.standardError.contains(
                    "moving: \(moving.path) has gone; serial ES4SN1 answers on \(portB)"
                )
            },
            "\(rig.standardError)"
        )
        #expect(
            await rig.waitAsync { runs(of: "moving").filter { $0.state == "complete" }.count > completeBefore },
            "\(rig.standardError)"
        )
        rig.send(SIGTERM)
        #expect(await rig.finishAsync().status == 143, "\(rig.standardError)")
        #expect(runs(of: "wrong").isEmpty)
        #expect(
            rig.standardError.contains("answers with serial ES4SN2, not ES4SN9: another Pico is there"),
            "\(rig.standardError)"
        )
    }
}
