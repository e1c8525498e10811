import BLETesting
import Foundation
import Testing

/// `hcipico console` as built: on a terminal (a pseudo-terminal driven as a person types), and with
/// piped input, its outputs and its exit status.
@Suite struct ConsoleCommandTests {
    static let lsv =
        "var c\nvar p\nset_pgstat_mode 2\ncell_on\nmeas_loop_lsv p c -100m 100m 50m 1\npck_start\npck_add p\npck_end\nendloop\n\n"

    /// Runs the built console on the simulator with `input` on standard input, in a scratch directory.
    static func piped(_ input: String, _ arguments: [String] = []) throws -> (run: ProgramRun, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let outcome = try TestProgram.run(
            try builtHCIPico(),
            ["console", "sim", "--fast"] + arguments,
            in: directory,
            input: Array(input.utf8)
        )
        let run = ProgramRun(status: outcome.status, stdout: outcome.outputText, stderr: outcome.errorText)
        return (run, directory)
    }

    struct ProgramRun {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// A run's peaks are printed after it, as `connect` prints them.
    @Test func aRunsPeaksFollowIt() throws {
        let cv =
            "var c\nvar p\nset_pgstat_mode 2\nset_range ba 50u\ncell_on\nmeas_loop_cv p c 0 500m -500m 10m 100m\n"
            + "pck_start\npck_add p\npck_add c\npck_end\nendloop\ncell_off\n\n"
        let (run, directory) = try Self.piped(cv)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("done: 201 packages\nthe run, current c: 2 peaks"), "\(run.stdout)")
    }

    @Test func pipedInputThatHitsADeviceErrorExits3() throws {
        let (run, directory) = try Self.piped("var c\nbogus 1\n\n" + Self.lsv)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("!4001") && run.stdout.contains("done: 5 packages"), "\(run.stdout)\(run.stderr)")
    }

    @Test func everyRunGoesToTheFilesAndSaveWritesTheLast() throws {
        let (run, directory) = try Self.piped(
            Self.lsv + Self.lsv + ":save last.jsonl\n:save last.csv\n",
            ["--csv", "all.csv"]
        )
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(run.status == 0, "\(run.stderr)")
        let all = try String(contentsOf: directory.appendingPathComponent("all.csv"), encoding: .utf8)
        let rows = all.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("run,") }
        #expect(
            rows.filter { $0.hasPrefix("1,") }.count == 5 && rows.filter { $0.hasPrefix("2,") }.count == 5,
            "\(all)"
        )
        #expect(all.contains("# firmware: espico") && all.contains("# serial: SIMPICO00001"))
        #expect(all.components(separatedBy: "# end: complete, 5 packages").count == 3)
        let last = try String(contentsOf: directory.appendingPathComponent("last.jsonl"), encoding: .utf8)
        #expect(last.hasPrefix("{\"event\":\"start\"") && last.contains("\"title\":\"console-2\""), "\(last)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("last.csv").path))
        #expect(run.stdout.contains("saved 5 packages to last.csv"))
    }

    @Test func onATerminalCtrlCClearsTheLineAndUpRecallsHistory() throws {
        let python = "/usr/bin/python3"
        try #require(FileManager.default.isExecutableFile(atPath: python), "needs python3")
        let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/console_pty.py").path
        let history = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: history) }
        let run = try #require(runProgram(python, [driver, try builtHCIPico(), history]))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("status 0"), "Ctrl-D leaves with 0: \(run.stdout)")
        #expect(run.stdout.contains("help shown 2"), "help, then Up and Enter, shows it twice: \(run.stdout)")
        #expect(run.stdout.contains("bogus ran False False"), "Ctrl-C cleared the typed line: \(run.stdout)")
        #expect(run.stdout.contains("help recalled from the last session True"), "\(run.stdout)")
        #expect((try? String(contentsOfFile: history, encoding: .utf8))?.contains("help") == true)
    }

    static let cv =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\ncell_on\n"
        + "meas_loop_cv p c 0 500m -500m 10m 100m nscans(2)\npck_start\npck_add p\npck_add c\npck_end\nendloop\n"
        + "on_finished:\ncell_off\n\n"
    static let eis =
        "e\nvar h\nvar r\nvar j\nset_pgstat_mode 3\nset_range ba 100u\nset_e 0\ncell_on\n"
        + "meas_loop_eis h r j 10m 100k 1k 11 0\npck_start\npck_add h\npck_add r\npck_add j\npck_end\nendloop\n"
        + "on_finished:\ncell_off\n\n"

    /// Two CVs then an EIS into one `--csv`: the CVs share one table (one header, each run's own `#`
    /// lines and end line), the EIS gets a file of its own; every run has its start event, with its
    /// script's SHA-256, in the JSON Lines file; `:load` runs a script file.
    @Test func runsWithOtherColumnsGetTheirOwnTableAndEveryRunItsProvenance() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.eis.write(to: directory.appendingPathComponent("EIS.mscr"), atomically: false, encoding: .utf8)
        let outcome = try TestProgram.run(
            try builtHCIPico(),
            ["console", "sim", "--fast", "--csv", "both.csv", "--jsonl", "both.jsonl"],
            in: directory,
            input: Array((Self.cv + Self.cv + ":load EIS.mscr\n:load missing.mscr\n").utf8)
        )
        #expect(outcome.status == 0, "\(outcome.errorText)")
        #expect(outcome.errorText.contains(":load missing.mscr: cannot read it"), "\(outcome.errorText)")
        #expect(outcome.outputText.contains("run 3 has other columns than both.csv: its table goes to both-run3.csv"))
        let text = { (name: String) in try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) }
        let both = try text("both.csv").split(separator: "\n")
        #expect(both.filter { $0.hasPrefix("run,") }.count == 1, "one header")
        #expect(both.filter { $0.hasPrefix("# run: ") } == ["# run: 1", "# run: 2"])
        #expect(both.filter { $0.hasPrefix("# end: complete") }.count == 2)
        let rows = both.filter { !$0.hasPrefix("#") && !$0.hasPrefix("run,") }
        let packages = both.first { $0.hasPrefix("# end: complete, ") }.flatMap { Int($0.split(separator: " ")[3]) }
        #expect(rows.count == 2 * (packages ?? 0) && rows.allSatisfy { $0.hasPrefix("1,") || $0.hasPrefix("2,") })
        let eis = try text("both-run3.csv").split(separator: "\n")
        #expect(eis.contains("# run: 3") && eis.filter { $0.hasPrefix("run,") }.count == 1, "\(eis.prefix(16))")
        #expect(eis.last?.hasPrefix("# end: complete") == true)
        let starts = try text("both.jsonl").split(separator: "\n").filter { $0.hasPrefix("{\"event\":\"start\"") }
        #expect(starts.count == 3)
        let hashes = starts.map { start in
            start.components(separatedBy: "\"script_sha256\":\"").last.map { String($0.prefix(64)) } ?? ""
        }
        #expect(hashes[0] == hashes[1] && hashes[1] != hashes[2], "each run's own script: \(hashes)")
    }

    /// SIGINT during a run (Ctrl-C on a terminal while the device measures): the run is aborted and
    /// kept as incomplete, `:save` writes it, and the console goes on with the next script.
    @Test func anInterruptAbortsTheRunAndTheConsoleGoesOn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Real time (no --fast): the CV takes about 20 s, time enough to interrupt it.
        let input = Self.cv + ":save aborted.csv\n" + Self.lsv
        let fifo = directory.appendingPathComponent("input").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let program = try TestProgram(
            "/bin/sh",
            ["-c", "exec \"$0\" console sim --csv runs.csv < input", try builtHCIPico()],
            in: directory
        )
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        try writer.write(contentsOf: Array((Self.cv).utf8))
        let csv = directory.appendingPathComponent("runs.csv").path
        #expect(await program.waitAsync { ((try? String(contentsOfFile: csv, encoding: .utf8)) ?? "").count > 2_000 })
        program.send(SIGINT)
        #expect(
            await program.waitAsync { ((try? String(contentsOfFile: csv, encoding: .utf8)) ?? "").contains("# end: ") }
        )
        try writer.write(contentsOf: Array((input.dropFirst(Self.cv.count)).utf8))
        try writer.close()
        let outcome = await program.finishAsync()
        #expect(outcome.status == 0, "\(outcome.errorText)")
        let runs = try String(contentsOfFile: csv, encoding: .utf8)
        #expect(runs.contains("# end: incomplete (interrupted (SIGINT)"), "\(runs.suffix(300))")
        // The aborted run was followed by cell_off, and its record says so; the console said it too.
        #expect(runs.contains("# cell: cell off confirmed at "), "\(runs.suffix(300))")
        #expect(outcome.outputText.contains("cell off confirmed at "), "\(outcome.outputText.suffix(300))")
        #expect(runs.hasSuffix("# end: complete, 5 packages\n"), "the next script ran: \(runs.suffix(200))")
        let saved = try String(contentsOf: directory.appendingPathComponent("aborted.csv"), encoding: .utf8)
        #expect(saved.contains("# end: incomplete (interrupted (SIGINT)"), "\(saved.suffix(200))")
    }
}
