import BLETesting
import Foundation
import Testing

/// Standard error closed by its reader (`2>&1 >out | head`), full (`/dev/full`) or a pipe nobody reads: a diagnostic that
/// cannot be written is dropped, never a trap (Foundation's `FileHandle.write` used to end the process
/// with SIGILL, exit 132) and never taken for standard output's loss. Through the built binary, on every
/// command that writes diagnostics while it works.
@Suite struct ClosedStandardStreamTests {
    static let rig = rigConfig(name: "closed-stderr", schedule: "continuous")

    /// A rig of one simulated Pico running `CV.mscr` as fast as it can on `schedule`, into `rig.sqlite`.
    static func rigConfig(name: String, schedule: String) -> String {
        """
        [rig]
        name = "\(name)"
        journal = "rig.sqlite"

        [[device]]
        name = "cell-1"
        transport = "sim"
        script = "CV.mscr"
        realtime = false
        schedule = "\(schedule)"
        """
    }

    static let cv =
        "e\nvar p\nvar c\nset_pgstat_mode 2\nset_range ba 50u\nset_e 0\ncell_on\n"
        + "meas_loop_cv p c 0 500m -500m 10m 100m nscans(3)\n  pck_start\n  pck_add p\n  pck_add c\n  pck_end\n"
        + "endloop\non_finished:\n  cell_off\n\n"

    /// Every command, as a shell line with `HCIPICO` for the binary; what must hold of its files after.
    static let commands: [(line: String, check: @Sendable (URL) throws -> Void)] = [
        (
            "$HCIPICO connect sim --fast --technique cv --csv out.csv --jsonl out.jsonl",
            { directory in
                let csv = try String(contentsOf: directory.appendingPathComponent("out.csv"), encoding: .utf8)
                #expect(csv.hasSuffix("# end: complete, 201 packages\n"), "\(csv.suffix(200))")
            }
        ),
        (
            "$HCIPICO rig rig.toml --for 3s -v",
            { directory in
                let runs = try TestProgram.run(
                    try TestProgram.hcipico(),
                    ["runs", "rig.sqlite", "--json"],
                    in: directory
                )
                #expect(!runs.outputText.contains("\"running\""), "no run left running: \(runs.outputText)")
                #expect(runs.outputText.contains("\"complete\""), "\(runs.outputText)")
            }
        ),
        (
            "$HCIPICO console sim --fast --csv console.csv < CV.mscr",
            { directory in
                let csv = try String(contentsOf: directory.appendingPathComponent("console.csv"), encoding: .utf8)
                #expect(csv.hasSuffix("# end: complete, 603 packages\n"), "\(csv.suffix(200))")
            }
        ),
        (
            "printf 'Pda8000000;bazz\\nPda8000001;ba8000002\\n' > bad.txt; $HCIPICO decode --format long bad.txt",
            { _ in }
        ),
        ("$HCIPICO serial sim:hm10 --idle 0.3 < CV.mscr", { _ in }),
        ("$HCIPICO rtt sim:hm10 --count 50", { _ in }),
        ("$HCIPICO gatt sim services", { _ in }),
        (
            "$HCIPICO rig rig.toml --for 3s > /dev/null 2>&1; $HCIPICO export rig.sqlite --out exported",
            { directory in
                let files = try FileManager.default.contentsOfDirectory(
                    atPath: directory.appendingPathComponent("exported").path
                )
                #expect(files.contains { $0.hasSuffix(".pstrace.csv") }, "\(files)")
            }
        ),
        // Without a radio these end at once with their status (10: no Bluetooth in this kernel).
        ("$HCIPICO scan --timeout 1", { _ in }),
        ("$HCIPICO adapters", { _ in }),
        ("$HCIPICO bonds", { _ in }),
    ]

    static func shell(_ line: String, in directory: URL) throws -> (status: Int32, error: String) {
        let outcome = try TestProgram.run(
            "/bin/bash",
            ["-c", line],
            in: directory,
            environment: ["HCIPICO": try TestProgram.hcipico()]
        )
        return (outcome.status, outcome.errorText)
    }

    static func scratch() throws -> URL {
        let directory = try CommandLineTests.scratch()
        try rig.write(to: directory.appendingPathComponent("rig.toml"), atomically: false, encoding: .utf8)
        try cv.write(to: directory.appendingPathComponent("CV.mscr"), atomically: false, encoding: .utf8)
        return directory
    }

    /// Shell lines making `fifo` a FIFO that the shell holds open for reading (so that opening it for
    /// writing does not wait) and never reads, filled to the brim first (64 KiB, a pipe's capacity);
    /// `timeout` kills a command that hangs on it `killAfter` seconds on (status 137).
    static func unreadPipe(_ fifo: String = "unread.fifo", killAfter: Int = 60) -> String {
        "mkfifo \(fifo); exec 3<>\(fifo); head -c 65536 /dev/zero > \(fifo); "
            + "HCIPICO=\"timeout -s KILL \(killAfter) $HCIPICO\"; "
    }

    @Test(arguments: ["closed pipe", "/dev/full", "unread pipe"])
    func everyCommandEndsCleanlyWhateverStandardErrorIs(_ kind: String) async throws {
        for command in Self.commands {
            let directory = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: directory) }
            // `true` exits at once: the pipe has no reader by the first write. The shell prints the
            // command's own status (PIPESTATUS), not the pipe's.
            let line =
                switch kind {
                case "/dev/full": "\(command.line) 2>/dev/full >/dev/null; echo \"status $?\" >&2"
                case "unread pipe":
                    Self.unreadPipe() + "\(command.line) 2>unread.fifo >/dev/null; echo \"status $?\" >&2"
                default: "\(command.line) 2>&1 >/dev/null | true; echo \"status ${PIPESTATUS[0]}\" >&2"
                }
            let result = try await CommandLineTests.offPool { try Self.shell(line, in: directory) }
            let status = result.error.split(separator: "\n").last { $0.hasPrefix("status ") }
            let code = status.flatMap { Int32($0.dropFirst(7)) }
            #expect(code != nil && code! < 128, "\(command.line) with standard error a \(kind): \(result.error)")
            #expect(code != 141, "standard output was fine: not a closed output")
            try command.check(directory)
        }
    }
}

/// A rig whose standard error is a pipe nobody reads: once the pipe is full its log lines are dropped
/// and counted (in the summary and `/metrics`), and the rig goes on measuring and ends on time with
/// every run closed (it hung in `write(2)`, and then on SIGTERM too, with a run left `running`).
@Suite struct UnreadStandardErrorTests {
    @Test func aRigLoggingIntoAPipeNobodyReadsMeasuresOnAndEndsOnTime() async throws {
        let directory = try ClosedStandardStreamTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CommandLineTests.offPool {
            try ClosedStandardStreamTests.shell(
                ClosedStandardStreamTests.unreadPipe()
                    + "$HCIPICO rig rig.toml --for 4s -vv 2>unread.fifo >summary.txt; echo \"status $?\" >&2",
                in: directory
            )
        }
        #expect(result.error.contains("status 0"), "\(result.error)")
        let summary = try String(contentsOf: directory.appendingPathComponent("summary.txt"), encoding: .utf8)
        let dropped = summary.split(separator: "\n").first { $0.hasPrefix("log: ") }
        #expect(dropped?.contains("to standard error dropped") == true, "\(summary)")
        let runs = try TestProgram.run(try TestProgram.hcipico(), ["runs", "rig.sqlite", "--json"], in: directory)
        #expect(!runs.outputText.contains("\"running\""), "no run left running: \(runs.outputText)")
        #expect(runs.outputText.components(separatedBy: "\"complete\"").count > 3, "\(runs.outputText)")
    }
}

/// No I/O path can trap: no `try!` anywhere under `Sources/`, and no `FileHandle` write (its
/// non-throwing `write(_:)` traps on `EPIPE`); standard streams go through `StandardError` and
/// `StandardStream`.
@Suite struct TrappingIOTests {
    @Test func noSourceFileUsesACallThatTrapsOnAWriteError() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let forbidden = [
            "try!", ".standardError.write(", ".standardOutput.write(", "FileHandle.standardError",
            "FileHandle.standardOutput",
        ]
        var found: [String] = []
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var checked = 0
        for case let url as URL in files where url.pathExtension == "swift" {
            checked += 1
            let lines = try String(contentsOf: url, encoding: .utf8).split(
                separator: "\n",
                omittingEmptySubsequences: false
            )
            for (number, line) in lines.enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                for word in forbidden where code.contains(word) {
                    found.append("\(url.lastPathComponent):\(number + 1): \(word)")
                }
            }
        }
        #expect(checked > 300, "the sources were found")
        #expect(found.isEmpty, "\(found)")
    }
}

/// Standard output full (`/dev/full`), closed by its reader or a pipe nobody reads: a command whose
/// result goes to standard output exits 6 when it could not write it (never 0), 141 when its reader
/// left, ends on SIGTERM while it waits for a reader, and never traps.
@Suite struct FullStandardOutputTests {
    /// A transcript with a bad line (`bad.txt`) and a journal of runs (`rig.sqlite`) for the commands.
    static let setup = "printf 'e\\nM0000\\nPda7F85E34u;ba8000000\\n*\\n\\n' > bad.txt; $HCIPICO rig rig.toml --for 2s"

    static let commands = [
        "$HCIPICO gatt sim services", "$HCIPICO gatt sim read 2A00", "$HCIPICO decode --csv bad.txt",
        "$HCIPICO connect sim --fast --quiet --technique lsv --csv -", "$HCIPICO runs rig.sqlite",
        "$HCIPICO rtt sim:hm10 --count 20", "$HCIPICO serial sim:hm10 --idle 0.3 < bad.txt",
    ]

    /// A scratch folder with the rig config, `bad.txt` and `rig.sqlite` (`setup`) the commands use.
    static func preparedScratch() async throws -> URL {
        let directory = try ClosedStandardStreamTests.scratch()
        let setup = try await CommandLineTests.offPool {
            try ClosedStandardStreamTests.shell(Self.setup, in: directory)
        }
        #expect(setup.status == 0, "\(setup.error)")
        return directory
    }

    @Test func aFullOrClosedStandardOutputIsNeverASuccessOrACrash() async throws {
        let directory = try await Self.preparedScratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in Self.commands {
            let full = try await CommandLineTests.offPool {
                try ClosedStandardStreamTests.shell("\(command) > /dev/full", in: directory)
            }
            #expect(full.status == 6, "\(command) > /dev/full: \(full.status) \(full.error)")
            #expect(full.error.contains("No space left on device"), "\(command): \(full.error)")
            let closed = try await CommandLineTests.offPool {
                try ClosedStandardStreamTests.shell(
                    "\(command) | (exec 0<&-; sleep 0); exit ${PIPESTATUS[0]}",
                    in: directory
                )
            }
            #expect([0, 141].contains(closed.status), "\(command) | closed: \(closed.status) \(closed.error)")
        }
    }

    /// Into a full pipe nobody reads a command waits, as any program's output does, until SIGTERM
    /// (after 1 s) ends it: no trap, and no hang past the signal (KILL 10 s later gives 137).
    @Test func aCommandWaitingOnAnUnreadStandardOutputEndsOnSIGTERM() async throws {
        let directory = try await Self.preparedScratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, command) in Self.commands.enumerated() {
                group.addTask {
                    let fifo = "unread-\(index).fifo"
                    let unread = try await CommandLineTests.offPool {
                        try ClosedStandardStreamTests.shell(
                            ClosedStandardStreamTests.unreadPipe(fifo, killAfter: 10)
                                + "timeout --preserve-status 1 \(command) > \(fifo)",
                            in: directory
                        )
                    }
                    #expect([0, 130, 141, 143].contains(unread.status), "\(command): \(unread.status) \(unread.error)")
                }
            }
            try await group.waitForAll()
        }
    }
}
