import BLETesting
import Foundation
import Testing

/// `hcipico connect sim` through the built binary, run from a scratch directory.
@Suite struct CommandLineTests {
    static func binary() throws -> URL { URL(fileURLWithPath: try TestProgram.hcipico()) }

    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs the built binary with `arguments` (with `raw`, the program `arguments[0]` instead).
    static func run(_ arguments: [String], in directory: URL, raw: Bool = false) throws -> Result {
        let outcome = try TestProgram.run(
            raw ? arguments[0] : try TestProgram.hcipico(),
            raw ? Array(arguments.dropFirst()) : arguments,
            in: directory
        )
        return Result(status: outcome.status, output: outcome.outputText, error: outcome.errorText)
    }

    /// Runs blocking work (waiting for a child process) on a dispatch thread, not on the cooperative
    /// pool that the other tests' tasks need.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Swift.Result { try body() }) }
        }
    }

    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `connect` analyses its run as it ends: the peaks are printed after the run, in the JSON Lines
    /// end line and ringed on the plot; an EIS's fit likewise.
    @Test func connectAnalysesItsRun() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cv = try await Self.offPool {
            try Self.run(
                ["connect", "sim", "--fast", "--technique", "cv", "--jsonl", "cv.jsonl", "--svg", "cv.svg"],
                in: directory
            )
        }
        #expect(cv.status == 0, "\(cv.error)")
        #expect(cv.output.contains("the run, current c: 2 peaks"), "\(cv.output)")
        let jsonl = try String(contentsOf: directory.appendingPathComponent("cv.jsonl"), encoding: .utf8)
        #expect(jsonl.split(separator: "\n").last?.contains("\"analysis\":{\"peaks\":{\"c\":[{") == true)
        let svg = try String(contentsOf: directory.appendingPathComponent("cv.svg"), encoding: .utf8)
        #expect(svg.components(separatedBy: "class=\"overlay-mark\"").count == 3)
        let eis = try await Self.offPool {
            try Self.run(["connect", "sim", "--fast", "--technique", "eis", "--quiet"], in: directory)
        }
        #expect(eis.status == 0, "\(eis.error)")
        #expect(!eis.output.contains("fitted"), "--quiet prints no results")
        let loud = try await Self.offPool {
            try Self.run(["connect", "sim", "--fast", "--technique", "eis"], in: directory)
        }
        #expect(loud.output.contains("the run: R(RC) fitted (modulus weighting"), "\(loud.output)")
        let off = try await Self.offPool {
            try Self.run(["connect", "sim", "--fast", "--technique", "eis", "--no-analysis"], in: directory)
        }
        #expect(off.status == 0 && !off.output.contains("fitted"), "\(off.output)")
    }

    @Test func lsvWritesACompleteCSVFromAnyDirectory() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.offPool {
            try Self.run(
                ["connect", "sim", "--fast", "--technique", "lsv", "--csv", "lsv.csv", "--svg", "lsv.svg"],
                in: directory
            )
        }
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasPrefix("EmStat Pico espico"))
        let csv = try String(contentsOf: directory.appendingPathComponent("lsv.csv"), encoding: .utf8)
        let lines = csv.split(separator: "\n").map(String.init)
        // The provenance (13 # lines: tool, device, address, transport, firmware, serial, script, its
        // SHA-256, run, run id, title, start, link), the header, a row per point, the end line.
        #expect(lines.prefix(13).allSatisfy { $0.hasPrefix("# ") }, "\(lines.prefix(13))")
        #expect(lines.contains("# serial: SIMPICO00001") && lines.contains("# script: lsv"))
        #expect(lines[13] == "run,scan,loop,package,host_time,p [V],c [A],c status,c range [A]")
        let expected = 13 + 1 + 101 + 2  // the end: its time, then its state
        #expect(lines.count == expected)
        #expect(lines[lines.count - 2].hasPrefix("# end_utc: 20"))
        #expect(lines.last == "# end: complete, 101 packages")
        let svg = try String(contentsOf: directory.appendingPathComponent("lsv.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"))
    }

    @Test func exitCodesTellOutcomesApart() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "var c\nstore_var c 5 ja\nset_e c\n".write(
            to: directory.appendingPathComponent("bad.mscr"),
            atomically: true,
            encoding: .ascii
        )
        try "var c\r\n".write(to: directory.appendingPathComponent("crlf.mscr"), atomically: true, encoding: .ascii)
        let deviceError = try await Self.offPool {
            try Self.run(["connect", "sim", "--fast", "--script", "bad.mscr"], in: directory)
        }
        #expect(deviceError.status == 3)
        #expect(deviceError.error.contains("line 3"))
        let badInput = try await Self.offPool {
            try Self.run(["connect", "sim", "--fast", "--script", "crlf.mscr"], in: directory)
        }
        #expect(badInput.status == 64)
        #expect(badInput.error.contains("line 1, column 6"))
        let missing = try await Self.offPool {
            try Self.run(["connect", "sim", "--fast", "--script", "missing.mscr"], in: directory)
        }
        #expect(missing.status == 64)
        let unknown = try await Self.offPool { try Self.run(["connect", "nowhere"], in: directory) }
        #expect(unknown.status == 64)
    }

    @Test func interruptAbortsAndKeepsTheData() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let csvPath = directory.appendingPathComponent("cv.csv").path
        // Off the cooperative pool: a suite busy with long tests must not hold the wait until the run
        // (20 s) has ended on its own.
        let (status, program) = try await Self.offPool {
            let program = try CommandProcess(
                ["connect", "sim", "--technique", "cv", "--csv", "cv.csv", "--quiet"],
                in: directory
            )
            // Wait for the column header and a few rows, then Ctrl-C.
            _ = program.wait { program.text("cv.csv").split(separator: "\n").filter { !$0.hasPrefix("#") }.count >= 4 }
            program.send(SIGINT)
            return (program.finish().status, program)
        }
        let lines = try String(contentsOfFile: csvPath, encoding: .utf8).split(separator: "\n")
        #expect(status == 130, "\(program.standardError); last line: \(String(lines.last ?? ""))")
        let end = lines.dropLast().last ?? ""
        #expect(end.hasPrefix("# end: incomplete (interrupted (SIGINT); script aborted by Z)"), "\(end)")
        #expect(lines.last?.hasPrefix("# cell: cell off confirmed at ") == true)
        #expect(lines.filter { !$0.hasPrefix("#") }.count >= 4, "the rows before the interrupt are kept")
    }
}
