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
        let run = try #require(runProgram(python, [driver, try builtHCIPico()]))
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("status 0"), "Ctrl-D leaves with 0: \(run.stdout)")
        #expect(run.stdout.contains("help shown 2"), "help, then Up and Enter, shows it twice: \(run.stdout)")
        #expect(run.stdout.contains("bogus ran False False"), "Ctrl-C cleared the typed line: \(run.stdout)")
    }
}
