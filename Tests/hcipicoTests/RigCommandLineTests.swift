import Foundation
import RigJournal
import Testing

/// `hcipico rig` as a service manager drives it: killed with SIGKILL at random moments and started
/// again, stopped with SIGTERM, given a bad config.
@Suite(.serialized) struct RigCommandLineTests {
    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rig-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples")
        for script in ["CV.mscr", "CA.mscr", "EIS.mscr"] {
            try FileManager.default.copyItem(
                at: examples.appendingPathComponent(script),
                to: directory.appendingPathComponent(script)
            )
        }
        return directory
    }

    /// Three simulated Picos running as fast as they can, one after the other.
    static let config = """
        [rig]
        name = "crash"
        journal = "crash.sqlite"
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
        realtime = false
        [[device]]
        name = "eis"
        transport = "sim"
        script = "EIS.mscr"
        schedule = "continuous"
        realtime = false
        """

    @Test func killedSixTimesTheJournalKeepsEveryCommittedPackageAndClosesEveryRun() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The CA device runs in real time (about 5 s a run), so a run whose start is committed is in
        // progress whenever the rig is killed; the two fast devices' runs mostly start and end in one
        // commit, which a kill leaves nothing of.
        let slowCA = "script = \"CA.mscr\"\nschedule = \"continuous\"\nrealtime = true"
        let config = Self.config.replacingOccurrences(
            of: "script = \"CA.mscr\"\nschedule = \"continuous\"\nrealtime = false",
            with: slowCA
        )
        #expect(config.contains(slowCA))
        try config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        let journalPath = directory.appendingPathComponent("crash.sqlite").path
        var committedBefore = 0
        for round in 0..<6 {
            let rig = try CommandProcess(["rig", "rig.toml"], in: directory)
            // Killed at a random moment once it is recording.
            #expect(
                await rig.waitAsync { rig.standardError.contains("complete") },
                "round \(round): \(rig.standardError)"
            )
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...400)))
            rig.send(SIGKILL)
            #expect(await rig.finishAsync().status == -SIGKILL)
            let journal = try Journal.openForReading(path: journalPath)
            #expect(try journal.integrityCheck() == ["ok"], "round \(round)")
            let committed = try journal.runs().reduce(0) { $0 + $1.packages }
            #expect(
                committed >= committedBefore,
                "round \(round): committed packages went from \(committedBefore) to \(committed)"
            )
            committedBefore = committed
        }
        // The last start closes the runs the last kill left open; SIGTERM then ends cleanly.
        let rig = try CommandProcess(["rig", "rig.toml"], in: directory)
        #expect(await rig.waitAsync { rig.standardError.contains("complete") })
        rig.send(SIGTERM)
        let ended = await rig.finishAsync()
        #expect(ended.status == 143 && ended.seconds < 5, "\(ended)")
        let journal = try Journal.openForReading(path: journalPath)
        #expect(try journal.integrityCheck() == ["ok"])
        let runs = try journal.runs()
        #expect(runs.allSatisfy { $0.state != "running" })
        let reasons = Dictionary(grouping: runs, by: { $0.reason ?? $0.state }).mapValues(\.count)
        // A kill leaves open the runs whose start was committed (up to one per device); a start that
        // was not yet committed left nothing behind. SIGTERM closes the runs in progress as stopped.
        #expect(runs.contains { $0.reason == "rig restarted" }, "\(reasons)")
        // No run that did not end normally is silent about its cell: killed runs say it is unknown, runs
        // stopped by SIGTERM that it was switched off.
        #expect(runs.allSatisfy { $0.state == "complete" || $0.cell != nil }, "\(runs.map { ($0.reason, $0.cell) })")
        #expect(
            runs.filter { $0.reason?.hasPrefix("stopped") == true }
                .allSatisfy { $0.cell?.hasPrefix("cell off confirmed at ") == true },
            "\(runs.map { ($0.reason, $0.cell) })"
        )
        #expect(runs.filter { $0.reason?.hasPrefix("stopped") == true }.count <= 3, "\(reasons)")
        #expect(runs.allSatisfy { $0.state == "complete" ? $0.reason == nil : $0.reason != nil })
        // Every run's packages are exactly 0..<packages: nothing committed is missing, nothing is twice.
        for run in runs {
            var indices: [Int] = []
            try journal.forEachPackage(of: run.id) { indices.append($0.index) }
            #expect(indices == Array(0..<run.packages), "run \(run.id): \(indices.count) of \(run.packages)")
        }
        #expect(try journal.runs().reduce(0) { $0 + $1.packages } >= committedBefore)
    }

    /// The rig killed (`kill -9`) during a run, with the device in a process of its own (`hcipico
    /// simulate`, as an instrument outlives its host): started again, the journal closes the killed run
    /// saying its cell state is unknown, and the device's first connection finds the script still
    /// running, stops it and switches the cell off; the next run's row says so.
    @Test func killedMidRunTheNextStartFindsTheScriptAndSwitchesTheCellOff() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        func config(script: String) -> String {
            """
            [rig]
            name = "kill"
            journal = "kill.sqlite"
            [[device]]
            name = "pico"
            transport = "sim"
            sim_socket = "pico.sock"
            script = "\(script)"
            schedule = "once"
            """
        }
        try
            "e\nvar p\nvar c\ncell_on\nmeas_loop_ca p c 100m 10m 50m\npck_start\npck_add p\npck_add c\npck_end\nendloop\n"
            .appending("on_finished:\ncell_off\n\n")
            .write(to: directory.appendingPathComponent("short.mscr"), atomically: true, encoding: .utf8)
        let device = try CommandProcess(
            ["simulate", "--socket", directory.appendingPathComponent("pico.sock").path, "--trace"],
            in: directory
        )
        #expect(await device.waitAsync { device.standardError.contains("serving a simulated EmStat Pico") })
        try config(script: "CV.mscr").write(
            to: directory.appendingPathComponent("rig.toml"),
            atomically: true,
            encoding: .utf8
        )
        let first = try CommandProcess(["rig", "rig.toml"], in: directory)
        #expect(await first.waitAsync { first.standardError.contains("run 1 started") }, "\(first.standardError)")
        #expect(await device.waitAsync { device.standardError.contains("sim: cell on") })
        // Killed once the run and some of its packages are committed.
        let journalPath = directory.appendingPathComponent("kill.sqlite").path
        #expect(
            await first.waitAsync {
                ((try? Journal.openForReading(path: journalPath).runs().first?.packages) ?? 0) >= 5
            }
        )
        first.send(SIGKILL)
        #expect(await first.finishAsync().status == -SIGKILL)
        try config(script: "short.mscr").write(
            to: directory.appendingPathComponent("rig.toml"),
            atomically: true,
            encoding: .utf8
        )
        let second = try CommandProcess(["rig", "rig.toml", "--for", "20s"], in: directory)
        let ended = await second.finishAsync()
        #expect(ended.status == 0, "\(second.standardError)")
        device.send(SIGTERM)
        _ = await device.finishAsync()
        let runs = try Journal.openForReading(path: journalPath).runs()
        #expect(runs.count == 2, "\(runs)")
        #expect(runs.first?.reason == "rig restarted")
        #expect(runs.first?.cell?.hasPrefix("cell state unknown: the rig ended without closing this run") == true)
        let found = try #require(runs.last?.foundAtConnect, "\(runs)")
        #expect(
            found.hasPrefix(
                "a script was still running at connect (its output was arriving): aborted; cell off confirmed at "
            )
        )
        #expect(runs.last?.state == "complete")
        let afterReconnect = device.standardError.components(separatedBy: "sim: a host connected").last ?? ""
        #expect(RunEndingCommandLineTests.firstCellState(afterReconnect) == "sim: cell off", "\(device.standardError)")
    }

    @Test func underSystemdItSaysReadyPingsTheWatchdogReloadsAndStops() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = """
            [rig]
            name = "service"
            [[device]]
            name = "ca"
            transport = "sim"
            script = "CA.mscr"
            schedule = "continuous"
            """
        try config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        let notify = try NotifySocket(in: directory)
        let rig = try CommandProcess(
            ["rig", "rig.toml"],
            in: directory,
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000", "JOURNAL_STREAM": "8:1"]
        )
        #expect(await rig.waitAsync { notify.messages.contains { $0.hasPrefix("READY=1") } })
        #expect(await rig.waitAsync { notify.messages.contains { $0.hasPrefix("WATCHDOG=1\nSTATUS=1 device:") } })
        rig.send(SIGHUP)
        #expect(await rig.waitAsync { notify.messages.contains { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") } })
        #expect(await rig.waitAsync { notify.messages.filter { $0.hasPrefix("READY=1") }.count == 2 })
        let reloaded =
            "<6>reloaded: added [], removed [], updated [] (from the next run), "
            + "reconnecting [] (after the run in progress), unchanged 1"
        #expect(await rig.waitAsync { rig.standardError.contains(reloaded) })
        rig.send(SIGTERM)
        #expect(await rig.finishAsync().status == 143)
        #expect(notify.messages.last?.hasPrefix("STOPPING=1") == true, "\(notify.messages)")
        // journald's priorities, no timestamps.
        #expect(rig.standardError.split(separator: "\n").allSatisfy { $0.hasPrefix("<") || !$0.contains("INFO") })
    }

    /// The rig's analysis of each run is in every file an export writes: the results files, the JSON
    /// Lines end line, and the plot (peaks ringed over their baselines, the fitted circuit's curve).
    @Test func exportCarriesEachRunsAnalysis() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = Self.config.replacingOccurrences(of: "schedule = \"continuous\"", with: "schedule = \"once\"")
        try config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        let rig = try CommandProcess(["rig", "rig.toml"], in: directory)
        #expect(await rig.finishAsync().status == 0, "\(rig.standardError)")
        let export = try CommandProcess(["export", "crash.sqlite", "--out", "out"], in: directory)
        #expect(await export.finishAsync().status == 0, "\(export.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)
        func file(_ device: String, _ suffix: String) throws -> String {
            let name = try #require(
                names.first {
                    $0.hasPrefix("\(device)-run") && $0.dropFirst(device.count + 4).drop { $0.isNumber } == suffix[...]
                }
            )
            return try String(contentsOf: directory.appendingPathComponent("out/" + name), encoding: .utf8)
        }
        let peaks = try file("cv", ".results.csv").split(separator: "\n")
        #expect(
            peaks.contains { $0.hasPrefix("1,c,1,1,anodic,") } && peaks.contains { $0.hasPrefix("1,c,1,2,cathodic,") }
        )
        #expect(try file("cv", ".results.json").contains("\"kind\":\"peaks\""))
        #expect(try file("cv", ".jsonl").split(separator: "\n").last?.contains("\"analysis\":{\"peaks\":") == true)
        #expect(try file("cv", ".svg").components(separatedBy: "class=\"overlay-mark\"").count == 3)
        let fit = try file("eis", ".results.csv").split(separator: "\n")
        #expect(
            fit.filter { $0.hasPrefix("1,R(RC),modulus,true,") }.map { $0.split(separator: ",")[4] } == [
                "R1", "R2", "C1",
            ]
        )
        #expect(try file("eis", ".svg").components(separatedBy: "class=\"overlay-line\"").count == 4)
        #expect(try file("eis", ".jsonl").split(separator: "\n").last?.contains("\"analysis\":{\"fit\":") == true)
        let none = try file("ca", ".results.json")
        #expect(none.contains("\"kind\":\"none\",\"note\":\"nothing to analyse in CA\""), "\(none)")
        #expect(try file("ca", ".jsonl").split(separator: "\n").last?.contains("analysis") == false)

        // `analyze` on the journal: as stored, and again with other settings.
        let stored = try CommandProcess(["analyze", "crash.sqlite", "--stored", "--device", "eis"], in: directory)
        #expect(await stored.finishAsync().status == 0, "\(stored.standardError)")
        #expect(stored.standardOutput.hasPrefix("eis run 1 (id "), "\(stored.standardOutput)")
        #expect(stored.standardOutput.contains("R(RC) fitted (modulus weighting"), "\(stored.standardOutput)")
        let again = try CommandProcess(
            ["analyze", "crash.sqlite", "--json", "--circuit", "R(RC)", "--weighting", "proportional"],
            in: directory
        )
        #expect(await again.finishAsync().status == 0, "\(again.standardError)")
        let runs =
            try #require(
                try JSONSerialization.jsonObject(with: Data(again.standardOutput.utf8)) as? [String: Any]
            )["runs"] as? [[String: Any]]
        #expect(Set(runs?.compactMap { $0["kind"] as? String } ?? []) == ["peaks", "fit", "none"], "\(runs ?? [])")
        #expect(again.standardOutput.contains("\"weighting\":\"proportional\""))
        let csvOnly = try CommandProcess(["analyze", "out/" + names[0], "--run", "1"], in: directory)
        #expect(await csvOnly.finishAsync().status == 64)
    }

    @Test func exportWritesSixFilesPerRunAndNeverReplacesOne() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        let rig = try CommandProcess(["rig", "rig.toml", "--for", "2s"], in: directory)
        #expect(await rig.finishAsync().status == 0, "\(rig.standardError)")
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let first = try CommandProcess(["export", "crash.sqlite", "--device", "cv", "--out", "out"], in: directory)
        #expect(await first.finishAsync().status == 0, "\(first.standardError)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(!files.isEmpty && files.count % 6 == 0, "\(files)")
        let suffixes = [".csv", ".jsonl", ".pstrace.csv", ".svg", ".results.json", ".results.csv"]
        for suffix in suffixes {
            // The longest suffix a name ends with is its own.
            let count = files.filter { name in
                suffixes.filter { name.hasSuffix($0) }.max { $0.count < $1.count } == suffix
            }
            .count
            #expect(count == files.count / 6, "\(suffix): \(files)")
        }
        // One file of the next export exists already: nothing is written, the file is untouched.
        let victim = out.appendingPathComponent(try #require(files.first { $0.hasSuffix(".svg") }))
        try Data("kept".utf8).write(to: victim)
        for name in files where name != victim.lastPathComponent {
            try FileManager.default.removeItem(at: out.appendingPathComponent(name))
        }
        let second = try CommandProcess(["export", "crash.sqlite", "--device", "cv", "--out", "out"], in: directory)
        #expect(await second.finishAsync().status == 64)
        #expect(second.standardError.contains("exists (--overwrite replaces it)"), "\(second.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [victim.lastPathComponent])
        #expect(try String(contentsOf: victim, encoding: .utf8) == "kept")
        let third = try CommandProcess(
            ["export", "crash.sqlite", "--device", "cv", "--out", "out", "--overwrite"],
            in: directory
        )
        #expect(await third.finishAsync().status == 0, "\(third.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).count == files.count)
    }

    @Test func aBadConfigIsEveryProblemLocatedAndExit64() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text =
            "[rig]\nname = \"r\"\n[[device]]\nname = \"a\"\ntransport = \"usb\"\nscript = \"CV.mscr\"\nevery = \"soon\"\n"
        try text.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        let rig = try CommandProcess(["rig", "rig.toml"], in: directory)
        #expect(await rig.finishAsync().status == 64)
        let lines = rig.standardError.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("rig.toml:5: device \"a\".transport:") }, "\(lines)")
        #expect(lines.contains { $0.contains("rig.toml:3: device \"a\".address: missing") }, "\(lines)")
        #expect(
            lines.contains { $0.contains("rig.toml:7: device \"a\".every: \"soon\" is not a duration") },
            "\(lines)"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("r.sqlite").path))
    }
}
