import Foundation
import Testing

/// `connect` never ends a run that did not end normally with the cell left on and its records silent:
/// each fault below ends with the simulated cell off (its `--sim-trace` says so) and `# cell: cell off
/// confirmed at …` in the outputs, or, where the device cannot be reached, `cell state unknown: …`.
/// (The signals, and a device that never ends its script after `Z`, are in `RunEndingCommandLineTests`.)
/// One at a time: their programs would otherwise add a burst of processes beside the suites that time
/// how soon a signal ends a program.
@Suite(.serialized) struct CellSafetyCommandLineTests {
    /// `cell_on`, ten points, then a potential the instrument cannot apply: `!4205` at line 9, after which
    /// the firmware runs no `on_finished:`.
    static let failsMidRun = """
        e
        var p
        var c
        var v
        store_var v 5 ja
        set_pgstat_mode 2
        set_range ba 50u
        set_e 0
        cell_on
        meas_loop_ca p c 200m 10m 100m
          pck_start
          pck_add p
          pck_add c
          pck_end
        endloop
        set_e v
        on_finished:
          cell_off

        """

    static func connect(_ arguments: [String], in directory: URL) async throws -> CommandLineTests.Result {
        try await CommandLineTests.offPool {
            try CommandLineTests.run(["connect", "sim", "--quiet", "--sim-trace"] + arguments, in: directory)
        }
    }

    static func lines(_ directory: URL, _ name: String) throws -> [Substring] {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
    }

    @Test func aDeviceErrorMidRunIsFollowedByCellOff() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.failsMidRun.write(
            to: directory.appendingPathComponent("fails.mscr"),
            atomically: true,
            encoding: .utf8
        )
        let result = try await Self.connect(
            ["--fast", "--script", "fails.mscr", "--csv", "run.csv", "--jsonl", "run.jsonl"],
            in: directory
        )
        #expect(result.status == 3, "\(result.error)")
        let csv = try Self.lines(directory, "run.csv")
        #expect(csv.dropLast().last?.hasPrefix("# end: incomplete (device error !4205") == true, "\(csv.suffix(2))")
        #expect(csv.last?.hasPrefix("# cell: cell off confirmed at ") == true, "\(csv.suffix(2))")
        let jsonl = try Self.lines(directory, "run.jsonl")
        #expect(jsonl.last?.contains("\"cell\":\"cell off confirmed at ") == true)
        #expect(RunEndingCommandLineTests.lastCellState(result.error) == "sim: cell off", "\(result.error)")
        #expect(result.error.contains("hcipico: cell off confirmed at "))
    }

    @Test func aCurrentPastTheLimitStopsTheRunExits8AndSwitchesTheCellOff() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Real time, so that the stop reaches the device while it measures.
        let result = try await Self.connect(
            ["--technique", "lsv", "--max-current", "1n", "--csv", "lsv.csv"],
            in: directory
        )
        #expect(result.status == 8, "\(result.error)")
        let csv = try Self.lines(directory, "lsv.csv")
        let end = csv.dropLast().last ?? ""
        #expect(end.hasPrefix("# end: incomplete (limit: current "), "\(end)")
        #expect(end.contains("is past the limit of 1 nA; script aborted by Z)"), "\(end)")
        #expect(csv.last?.hasPrefix("# cell: cell off confirmed at ") == true, "\(csv.suffix(2))")
        #expect(RunEndingCommandLineTests.lastCellState(result.error) == "sim: cell off", "\(result.error)")
    }

    @Test func aRunPastItsLongestTimeStopsAtTheLimit() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.connect(["--technique", "cv", "--max-run", "1s", "--csv", "cv.csv"], in: directory)
        #expect(result.status == 8, "\(result.error)")
        let csv = try Self.lines(directory, "cv.csv")
        #expect(
            csv.dropLast().last?.hasPrefix("# end: incomplete (limit: the run took longer than 1.0 seconds") == true
        )
        #expect(csv.last?.hasPrefix("# cell: cell off confirmed at ") == true, "\(csv.suffix(2))")
        #expect(RunEndingCommandLineTests.lastCellState(result.error) == "sim: cell off", "\(result.error)")
    }

    @Test func aLostLinkMidRunLeavesTheCellStateUnknownAndSaysSo() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.connect(
            ["--technique", "cv", "--sim-fault", "drops-link", "--csv", "cv.csv"],
            in: directory
        )
        #expect(result.status == 4, "\(result.error)")
        let csv = try Self.lines(directory, "cv.csv")
        #expect(
            csv.last == "# cell: cell state unknown: the link was lost; the next connection switches the cell off",
            "\(csv.suffix(2))"
        )
        // The instrument goes on without its host: when the run was recorded its cell was still on (the
        // simulator only stops when the program ends), and the record does not hide it.
        let beforeTheEnd = result.error.components(separatedBy: "hcipico: cell state unknown").first ?? ""
        #expect(
            RunEndingCommandLineTests.lastCellState(beforeTheEnd)?.hasPrefix("sim: cell on") == true,
            "\(result.error)"
        )
        #expect(result.error.contains("hcipico: cell state unknown: the link was lost"))
    }

    @Test func aDeviceThatStopsAnsweringLeavesTheCellStateUnknown() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.connect(
            ["--technique", "cv", "--sim-fault", "goes-mute", "--max-run", "3s", "--csv", "cv.csv"],
            in: directory
        )
        #expect(result.status == 8, "\(result.error)")
        let csv = try Self.lines(directory, "cv.csv")
        let end = csv.dropLast().last ?? ""
        #expect(
            end.hasPrefix("# end: incomplete (limit: the run took longer than 3.0 seconds; no reply to Z"),
            "\(end)"
        )
        #expect(
            csv.last == "# cell: cell state unknown: the link was closed after the device did not stop",
            "\(csv.suffix(2))"
        )
        #expect(result.error.contains("hcipico: cell state unknown: "), "\(result.error)")
    }

    /// A host killed (`kill -9`) in the middle of a run leaves the device measuring with its cell on; the
    /// next `connect` finds the script first, stops it and switches the cell off, and its run's record says
    /// so. The device is `hcipico simulate`, a process of its own, as an instrument outlives its host.
    @Test func aKilledHostsScriptIsFoundStoppedAndTheCellSwitchedOffByTheNextConnect() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("pico.sock").path
        try
            "e\nvar p\nvar c\ncell_on\nmeas_loop_ca p c 100m 10m 50m\npck_start\npck_add p\npck_add c\npck_end\nendloop\n"
            .appending("on_finished:\ncell_off\n\n")
            .write(to: directory.appendingPathComponent("short.mscr"), atomically: true, encoding: .utf8)
        let device = try CommandProcess(["simulate", "--socket", socket, "--trace"], in: directory)
        #expect(await device.waitAsync { device.standardError.contains("serving a simulated EmStat Pico") })
        let killed = try CommandProcess(
            ["connect", "sim", "--sim-socket", socket, "--technique", "cv", "--csv", "killed.csv", "--quiet"],
            in: directory
        )
        #expect(await killed.waitAsync { killed.text("killed.csv").split(separator: "\n").count >= 20 })
        killed.send(SIGKILL)
        #expect(await killed.finishAsync().status == -SIGKILL)
        #expect(device.standardError.hasSuffix("sim: cell on at 0.0 V\n"), "\(device.standardError)")
        let next = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", "sim", "--sim-socket", socket, "--script", "short.mscr", "--csv", "next.csv", "--quiet"],
                in: directory
            )
        }
        #expect(next.status == 0, "\(next.error)")
        let found = "a script was still running at connect (its output was arriving): aborted; cell off confirmed at "
        #expect(next.error.contains("hcipico: " + found), "\(next.error)")
        let csv = try Self.lines(directory, "next.csv")
        #expect(csv.contains { $0.hasPrefix("# found_at_connect: " + found) }, "\(csv.prefix(16))")
        device.send(SIGTERM)
        _ = await device.finishAsync()
        // The device's own account: after the second host connected, the first change of its cell is off.
        let afterReconnect = device.standardError.components(separatedBy: "sim: a host connected").last ?? ""
        #expect(RunEndingCommandLineTests.firstCellState(afterReconnect) == "sim: cell off", "\(device.standardError)")
    }
}
