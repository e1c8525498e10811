import BLETesting
import Foundation
import Testing

/// Outputs are checked before anything connects, never clobbered, written in place unless they are
/// regular files, and a write failure ends the run honestly (exit 6): through the built binary.
@Suite struct OutputSafetyCommandLineTests {
    static func connect(_ arguments: [String], in directory: URL) async throws -> CommandLineTests.Result {
        try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", "sim", "--fast", "--technique", "lsv", "--quiet"] + arguments,
                in: directory
            )
        }
    }

    static func write(_ text: String, to url: URL) throws {
        try text.write(to: url, atomically: false, encoding: .utf8)
    }

    @Test func anExistingOutputIsRefusedBeforeConnectingAndKept() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.write("precious\n", to: directory.appendingPathComponent("old.csv"))
        // A silent device would hang the connect: the refusal comes first.
        let refused = try await Self.connect(["--csv", "old.csv", "--sim-fault", "silent"], in: directory)
        #expect(refused.status == 64)
        #expect(refused.error.contains("--csv old.csv: exists; give --overwrite to replace it"), "\(refused.error)")
        #expect(try String(contentsOf: directory.appendingPathComponent("old.csv"), encoding: .utf8) == "precious\n")
        for option in ["--jsonl", "--svg"] {
            let other = try await Self.connect([option, "old.csv"], in: directory)
            #expect(other.status == 64 && other.error.contains("\(option) old.csv: exists"))
        }
        let replaced = try await Self.connect(["--csv", "old.csv", "--overwrite"], in: directory)
        #expect(replaced.status == 0, "\(replaced.error)")
        let text = try String(contentsOf: directory.appendingPathComponent("old.csv"), encoding: .utf8)
        #expect(text.hasSuffix("# end: complete, 101 packages\n"))
    }

    @Test func aFailedConnectCreatesAndTruncatesNothing() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.write("precious\n", to: directory.appendingPathComponent("old.csv"))
        let result = try await Self.connect(
            ["--csv", "old.csv", "--jsonl", "new.jsonl", "--overwrite", "--sim-fault", "malformed-mtu"],
            in: directory
        )
        #expect(result.status == 3)
        #expect(try String(contentsOf: directory.appendingPathComponent("old.csv"), encoding: .utf8) == "precious\n")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.jsonl").path))
    }

    @Test func outDirectoryKeepsEveryRun() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("runs"),
            withIntermediateDirectories: false
        )
        for _ in 0..<2 {
            let result = try await Self.connect(["--out", "runs"], in: directory)
            #expect(result.status == 0, "\(result.error)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("runs").path)
            .sorted()
        #expect(names.count == 12, "\(names)")
        #expect(names.filter { $0.hasSuffix(".pstrace.csv") }.count == 2, "\(names)")
        #expect(names.filter { $0.hasSuffix(".results.json") }.count == 2, "\(names)")
        #expect(
            names.filter {
                $0.hasPrefix("sim-pico-lsv-") && $0.hasSuffix(".csv") && !$0.hasSuffix(".pstrace.csv")
                    && !$0.hasSuffix(".results.csv")
            }
            .count == 2,
            "\(names)"
        )
        // A folder that does not exist is made, as mkdir would; a file is refused before connecting.
        let missing = try await Self.connect(["--out", "new"], in: directory)
        #expect(missing.status == 0, "\(missing.error)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("new").path).count == 6
        )
        try Self.write("a file\n", to: directory.appendingPathComponent("file"))
        let file = try await Self.connect(["--out", "file", "--sim-fault", "silent"], in: directory)
        #expect(file.status == 64 && file.error.contains("--out file: not a folder"), "\(file.error)")
    }

    @Test func symlinksFIFOsAndDevicesAreWrittenInPlace() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("target.svg")
        try Self.write("old\n", to: target)
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("link.svg").path,
            withDestinationPath: "target.svg"
        )
        let viaLink = try await Self.connect(["--svg", "link.svg", "--overwrite"], in: directory)
        #expect(viaLink.status == 0, "\(viaLink.error)")
        let attributes = try FileManager.default.attributesOfItem(
            atPath: directory.appendingPathComponent("link.svg").path
        )
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
        #expect(try String(contentsOf: target, encoding: .utf8).hasSuffix("</svg>\n"))
        // A FIFO with a reader gets the CSV; a character device takes the SVG.
        let fifo = directory.appendingPathComponent("pipe.csv").path
        #expect(mkfifo(fifo, 0o644) == 0)
        // The reader opens its end first (without blocking) and reads on a thread of its own.
        let readEnd = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(readEnd >= 0)
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) & ~O_NONBLOCK)
        // A writer of our own keeps the reader from seeing the end before hcipico has written.
        let holder = open(fifo, O_WRONLY | O_NONBLOCK)
        try #require(holder >= 0)
        let reader = FileHandle(fileDescriptor: readEnd, closeOnDealloc: true)
        async let received = CommandLineTests.offPool { () -> String in
            String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        }
        let viaFIFO = try await Self.connect(["--csv", "pipe.csv", "--svg", "/dev/null"], in: directory)
        close(holder)
        #expect(viaFIFO.status == 0, "\(viaFIFO.error)")
        #expect(try await received.hasSuffix("# end: complete, 101 packages\n"))
        try reader.close()
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        // A FIFO nobody reads is an error, not a hang.
        let unread = try await Self.connect(["--csv", "pipe.csv"], in: directory)
        #expect(unread.status == 6 && unread.error.contains("pipe.csv: open failed"), "\(unread.error)")
    }

    @Test func anOutputMayNotBeAnInputOrAnotherOutput() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("v.mscr")
        try Self.write(EmbeddedScript.lsv, to: script)
        let overScript = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", "sim", "--fast", "--script", "v.mscr", "--csv", "./v.mscr", "--overwrite"],
                in: directory
            )
        }
        #expect(
            overScript.status == 64 && overScript.error.contains("is the same file as --script"),
            "\(overScript.error)"
        )
        #expect(try String(contentsOf: script, encoding: .utf8) == EmbeddedScript.lsv)
        let twice = try await Self.connect(["--csv", "x.out", "--jsonl", "./x.out"], in: directory)
        #expect(twice.status == 64 && twice.error.contains("--jsonl ./x.out: is the same file as --csv"))
        try Self.write("", to: directory.appendingPathComponent("a.out"))
        #expect(
            link(directory.appendingPathComponent("a.out").path, directory.appendingPathComponent("b.out").path) == 0
        )
        let hardLinked = try await Self.connect(["--csv", "a.out", "--jsonl", "b.out", "--overwrite"], in: directory)
        #expect(hardLinked.status == 64 && hardLinked.error.contains("is the same file as --csv"))
        let bothStdout = try await Self.connect(["--csv", "-", "--jsonl", "/dev/stdout"], in: directory)
        #expect(bothStdout.status == 64, "\(bothStdout.error)")
        let noDirectory = try await Self.connect(["--csv", "missing/x.csv"], in: directory)
        #expect(noDirectory.status == 64 && noDirectory.error.contains("its directory missing does not exist"))
    }

    @Test func standardOutputCarriesOnlyData() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CommandLineTests.offPool {
            try CommandLineTests.run(["connect", "sim", "--fast", "--technique", "lsv", "--csv", "-"], in: directory)
        }
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").filter { !$0.hasPrefix("# ") || $0.hasPrefix("# end:") }
        #expect(lines.first?.hasPrefix("run,scan,loop,package") == true, "\(lines.first ?? "")")
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.hasPrefix("1,1,1,") })
        #expect(lines.last == "# end: complete, 101 packages")
        #expect(result.error.contains("EmStat Pico"))
    }

    @Test func aFullDeviceEndsTheRunWithStatusSix() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.connect(["--csv", "/dev/full"], in: directory)
        #expect(result.status == 6)
        #expect(result.error.contains("could not write output: /dev/full: write failed: No space left on device"))
        #expect(result.error.contains("the run was aborted"))
    }

    /// A small tmpfs that fills up mid-run (root only: elsewhere the failing-file unit tests cover it).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")))
    func aFullFileSystemNeverEndsComplete() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mountPoint = directory.appendingPathComponent("small")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: false)
        let mounted = try CommandLineTests.run(
            ["/bin/mount", "-t", "tmpfs", "-o", "size=24k", "tmpfs", mountPoint.path],
            in: directory,
            raw: true
        )
        try #require(mounted.status == 0, "\(mounted.error)")
        defer { _ = try? CommandLineTests.run(["/bin/umount", mountPoint.path], in: directory, raw: true) }
        let result = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                [
                    "connect", "sim", "--fast", "--technique", "cv", "--quiet", "--csv", "small/cv.csv", "--jsonl",
                    "small/cv.jsonl",
                ],
                in: directory
            )
        }
        #expect(result.status == 6, "\(result.error)")
        #expect(result.error.contains("No space left on device"))
        let csv = (try? String(contentsOf: mountPoint.appendingPathComponent("cv.csv"), encoding: .utf8)) ?? ""
        #expect(!csv.contains("complete,"))
        #expect(csv.isEmpty || csv.hasSuffix("\n"))
        let jsonl = (try? String(contentsOf: mountPoint.appendingPathComponent("cv.jsonl"), encoding: .utf8)) ?? ""
        #expect(jsonl.isEmpty || jsonl.hasSuffix("\n"))
        for line in jsonl.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line)")
        }
    }

    /// `kill -9` at 20 random moments of a real-time run: every output is a valid prefix.
    @Test func killedAtAnyMomentEveryOutputIsAValidPrefix() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            let delay = Double.random(in: 0.05...1.5, using: &generator)
            let names = ["r\(round).csv", "r\(round).jsonl", "r\(round).svg"]
            let program = try await CommandLineTests.offPool {
                let program = try CommandProcess(
                    [
                        "connect", "sim", "--technique", "lsv", "--quiet", "--csv", names[0], "--jsonl", names[1],
                        "--svg", names[2],
                    ],
                    in: directory
                )
                Thread.sleep(forTimeInterval: delay)
                program.send(SIGKILL)
                _ = program.finish()
                return program
            }
            let csv = program.text(names[0])
            #expect(csv.isEmpty || csv.hasSuffix("\n"), "round \(round)")
            // Every line whole: provenance, the header, rows of the LSV's nine columns.
            for line in csv.split(separator: "\n") where !line.hasPrefix("#") {
                #expect(
                    line.split(separator: ",", omittingEmptySubsequences: false).count == 9,
                    "round \(round): \(line)"
                )
            }
            let jsonl = program.text(names[1])
            #expect(jsonl.isEmpty || jsonl.hasSuffix("\n"))
            for line in jsonl.split(separator: "\n") {
                #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "round \(round): \(line)")
            }
            let svg = program.text(names[2])
            #expect(svg.isEmpty || (svg.hasPrefix("<?xml") && svg.hasSuffix("</svg>\n")), "round \(round)")
        }
    }
}

extension OutputSafetyCommandLineTests {
    /// `kill -9` once the CV's CSV holds 44 rows: the PSTrace file, rewritten whole every 2 s while the
    /// run goes on, holds the run up to its last rewrite (it was empty until the end).
    @Test func killedMidRunThePSTraceFileHoldsTheRunSoFar() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                ["connect", "sim", "--technique", "cv", "--quiet", "--csv", "cv.csv", "--pstrace", "cv.pstrace.csv"],
                in: directory
            )
            let rows = { program.text("cv.csv").split(separator: "\n").filter { !$0.hasPrefix("#") }.count - 1 }
            // 44 rows in, and the PSTrace file written at least once (it stayed empty until the end).
            // Its bytes, not its text: UTF-16 with a byte order mark does not decode as UTF-8.
            let pstrace = directory.appendingPathComponent("cv.pstrace.csv")
            let written = { ((try? Data(contentsOf: pstrace))?.count ?? 0) > 0 }
            let reached = program.wait { rows() >= 44 && written() }
            program.send(SIGKILL)
            _ = program.finish()
            #expect(reached, "\(program.text("cv.csv").suffix(300))")
            return program
        }
        let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent("cv.pstrace.csv")))
        let lines = try #require(PSTraceText.lines(bytes))
        let so = try #require(lines[1].range(of: "end: running, "))
        let count = Int(lines[1][so.upperBound...].prefix { $0.isNumber }) ?? 0
        let rows = program.text("cv.csv").split(separator: "\n").filter { !$0.hasPrefix("#") }.count - 1
        #expect(count > 0 && count <= rows, "\(lines[1]); \(rows) rows in the CSV")
        #expect(lines.count - 6 >= count / 3, "the data rows of \(count) packages over at most three scans")
    }
}

/// The LSV example, as a script file a test can name.
enum EmbeddedScript {
    static let lsv: String = {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/LSV_10k.mscr")
        return (try? String(contentsOf: examples, encoding: .utf8)) ?? ""
    }()
}
