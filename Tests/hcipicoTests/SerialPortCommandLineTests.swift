import BLETesting
import Foundation
import Testing

/// An EmStat Pico on a serial port, through the built binary: `connect tty:PATH` to the simulated Pico
/// that `hcipico simulate --pty` serves on a pseudo-terminal, as to a Pico on a USB-UART cable. One at a
/// time: some time how soon a pulled cable ends a run.
@Suite(.serialized) struct SerialPortCommandLineTests {
    /// Each technique's points (`hcipico methods`).
    static let points = [
        "lsv": 101, "cv": 201, "dpv": 201, "swv": 201, "npv": 201, "ca": 50, "ma": 120, "ocp": 50, "eis": 31,
    ]

    static func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    @Test func everyTechniqueRunsOverTheSerialPortWithEveryPackage() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory)
        defer { _ = pico.stop() }
        for (technique, points) in Self.points.sorted(by: { $0.key < $1.key }) {
            let result = try await CommandLineTests.offPool {
                try CommandLineTests.run(
                    ["connect", pico.target(), "--technique", technique, "--csv", "\(technique).csv", "--quiet"],
                    in: directory
                )
            }
            #expect(result.status == 0, "\(technique): \(result.error)")
            let csv = Self.lines(
                try String(contentsOf: directory.appendingPathComponent("\(technique).csv"), encoding: .utf8)
            )
            #expect(csv.contains("# end: complete, \(points) packages"), "\(technique): \(csv.suffix(2))")
            #expect(csv.contains("# transport: \(pico.target(baud: 230_400))"), "\(technique)")
            #expect(csv.contains("# link: \(pico.path) at 230400 baud"), "\(technique)")
            #expect(csv.filter { !$0.hasPrefix("#") }.count == points + 1, "\(technique): a header and every point")
        }
    }

    @Test(arguments: [(SIGINT, Int32(130), "SIGINT"), (SIGTERM, Int32(143), "SIGTERM")])
    func aSignalAbortsTheRunWithZAndSwitchesTheCellOff(
        _ signal: Int32,
        _ expected: Int32,
        _ name: String
    )
        async throws
    {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory, realTime: true)
        defer { _ = pico.stop() }
        let (status, seconds, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                ["connect", pico.target(), "--technique", "cv", "--csv", "cv.csv", "--quiet"],
                in: directory
            )
            _ = program.wait { program.text("cv.csv").split(separator: "\n").filter { !$0.hasPrefix("#") }.count >= 6 }
            program.send(signal)
            let (status, seconds) = program.finish()
            return (status, seconds, program)
        }
        #expect(status == expected, "\(program.standardError)")
        #expect(seconds < 2, "took \(seconds) s to exit")
        let csv = Self.lines(program.text("cv.csv"))
        let end = csv.dropLast().last ?? ""
        #expect(end.hasPrefix("# end: incomplete (interrupted (\(name)); script aborted by Z), "), "\(end)")
        #expect(csv.last?.hasPrefix("# cell: cell off confirmed at ") == true, "\(csv.suffix(2))")
    }

    @Test func aDeviceErrorMidRunIsFollowedByCellOff() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try CellSafetyCommandLineTests.failsMidRun.write(
            to: directory.appendingPathComponent("fails.mscr"),
            atomically: true,
            encoding: .utf8
        )
        let pico = try PseudoTerminalPico(in: directory)
        defer { _ = pico.stop() }
        let result = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", pico.target(), "--script", "fails.mscr", "--csv", "run.csv", "--quiet"],
                in: directory
            )
        }
        #expect(result.status == 3, "\(result.error)")
        let csv = Self.lines(try String(contentsOf: directory.appendingPathComponent("run.csv"), encoding: .utf8))
        #expect(csv.dropLast().last?.hasPrefix("# end: incomplete (device error !4205") == true, "\(csv.suffix(2))")
        #expect(csv.last?.hasPrefix("# cell: cell off confirmed at ") == true, "\(csv.suffix(2))")
    }

    /// A cable pulled mid-run ends the run as incomplete at once, with every point received kept; plugged
    /// in again, the next connection finds the script still running, stops it and switches the cell off.
    @Test func aCablePulledMidRunEndsItIncompleteAndTheNextConnectionTidiesUp() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory, realTime: true)
        defer { _ = pico.stop() }
        let before = try FileManager.default.destinationOfSymbolicLink(atPath: pico.path)
        let (status, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                ["connect", pico.target(), "--technique", "cv", "--csv", "cv.csv", "--quiet"],
                in: directory
            )
            _ = program.wait { program.text("cv.csv").split(separator: "\n").filter { !$0.hasPrefix("#") }.count >= 6 }
            _ = pico.unplug()
            return (program.finish().status, program)
        }
        #expect(status == 4, "\(program.standardError)")
        let csv = Self.lines(program.text("cv.csv"))
        let end = csv.dropLast().last ?? ""
        #expect(end.hasPrefix("# end: incomplete (connection lost: device gone: \(pico.path)"), "\(end)")
        let kept = csv.filter { !$0.hasPrefix("#") }.count - 1
        #expect(end.hasSuffix(", \(kept) packages"), "every point received is kept: \(end)")
        #expect(csv.last?.hasPrefix("# cell: cell state unknown") == true, "\(csv.suffix(2))")

        // Pulled, the port is not there: a clear refusal.
        let missing = try await CommandLineTests.offPool {
            try CommandLineTests.run(["connect", pico.target(), "--technique", "ca"], in: directory)
        }
        #expect(missing.status == 11, "\(missing.error)")
        #expect(missing.error.contains("no serial device \(pico.path)"), "\(missing.error)")

        #expect(pico.plug())
        // Plugged in again, the cable is another device, as a ttyUSBn may come back as ttyUSBm.
        let after = try FileManager.default.destinationOfSymbolicLink(atPath: pico.path)
        #expect(after != before, "\(after)")
        let next = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", pico.target(), "--technique", "ca", "--csv", "ca.csv", "--quiet"],
                in: directory
            )
        }
        #expect(next.status == 0, "\(next.error)")
        #expect(next.error.contains("a script was still running at connect"), "\(next.error)")
        let ca = Self.lines(try String(contentsOf: directory.appendingPathComponent("ca.csv"), encoding: .utf8))
        #expect(ca.contains { $0.hasPrefix("# found_at_connect: a script was still running at connect") })
        #expect(ca.contains("# end: complete, 50 packages"), "\(ca.suffix(2))")
    }

    /// A second program on a port in use is refused at once; the first goes on undisturbed.
    @Test func aSecondProgramOnThePortIsRefusedAndTheFirstGoesOn() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory, realTime: true)
        defer { _ = pico.stop() }
        let (second, first, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                ["connect", pico.target(), "--technique", "ca", "--csv", "ca.csv", "--quiet"],
                in: directory
            )
            _ = program.wait { program.text("ca.csv").split(separator: "\n").filter { !$0.hasPrefix("#") }.count >= 3 }
            let second = try CommandLineTests.run(["connect", pico.target(), "--technique", "ca"], in: directory)
            return (second, program.finish().status, program)
        }
        #expect(second.status == 14, "\(second.error)")
        #expect(second.error.contains("\(pico.path) is held by another program"), "\(second.error)")
        #expect(first == 0, "\(program.standardError)")
        #expect(Self.lines(program.text("ca.csv")).contains("# end: complete, 50 packages"))
    }

    /// At the wrong rate the line carries noise: a clear error that names the rate, never noise decoded
    /// as data.
    @Test func theWrongBaudRateIsAClearErrorNotGarbage() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory)
        defer { _ = pico.stop() }
        let result = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", pico.target(baud: 9600), "--technique", "cv", "--csv", "cv.csv"],
                in: directory
            )
        }
        #expect(result.status == 4, "\(result.error)")
        #expect(result.error.contains("is 9600 baud the device's rate?"), "\(result.error)")
        #expect(result.error.contains("230400 baud"), "\(result.error)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("cv.csv").path))
    }

    /// A `tty:` spec that cannot be one, and Bluetooth options with a serial port, are refused up front.
    @Test func badSerialSpecsAreRefusedWithExit64() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (arguments, words) in [
            (["connect", "tty:/dev/x@fast"], "'fast' is not a baud rate"),
            (["connect", "tty:ttyUSB0"], "must be an absolute path"),
            (["connect", "tty:/dev/x", "--security", "encrypt"], "--security and --passkey are for Bluetooth"),
            (["connect", "tty:/dev/x@123"], "123 is not a baud rate termios supports"),
        ] {
            let result = try CommandLineTests.run(arguments, in: directory)
            #expect(result.error.contains(words), "\(arguments): \(result.error)")
            #expect(result.status == 64, "\(arguments): \(result.status)")
        }
    }

    /// `ports --probe` names what answers on a port, and says so of one another program holds.
    @Test func portsProbesWhatAnswersOnAPort() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory, extra: ["--serial-number", "ES4SN19000123"])
        defer { _ = pico.stop() }
        let result = try CommandLineTests.run(["ports", "--probe", "--port", pico.path], in: directory)
        #expect(result.status == 0, "\(result.error)")
        let row = result.output.split(separator: "\n").first { $0.hasPrefix(pico.path) } ?? ""
        #expect(row.contains("/dev/pts/"), "\(result.output)")
        #expect(row.hasSuffix("EmStat Pico espico1209#Nov 22 2026 00:00:00, serial ES4SN19000123"), "\(result.output)")
        let wrongRate = try CommandLineTests.run(
            ["ports", "--probe", "--port", pico.path, "--baud", "9600"],
            in: directory
        )
        #expect(wrongRate.output.contains("is 9600 baud the device's rate?"), "\(wrongRate.output)")
    }

    /// `--raw` keeps what the port carried, and `decode` reads every package back from it.
    @Test func rawCapturesWhatThePortCarriedForDecode() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory)
        defer { _ = pico.stop() }
        let run = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", pico.target(), "--technique", "dpv", "--raw", "dpv.raw", "--quiet"],
                in: directory
            )
        }
        #expect(run.status == 0, "\(run.error)")
        let raw = try String(contentsOf: directory.appendingPathComponent("dpv.raw"), encoding: .utf8)
        #expect(raw.hasPrefix("tespico1209#"), "the reply to t comes first: \(raw.prefix(40))")
        #expect(raw.split(separator: "\n").filter { $0.hasPrefix("P") }.count == 201)
        let decoded = try CommandLineTests.run(["decode", "dpv.raw", "--csv"], in: directory)
        #expect(decoded.status == 0, "\(decoded.error)")
        #expect(
            decoded.output.split(separator: "\n").last == "# end: complete, 201 packages",
            "\(decoded.output.suffix(80))"
        )
        // Refused, like every output, when it exists.
        let again = try CommandLineTests.run(
            ["connect", pico.target(), "--technique", "dpv", "--raw", "dpv.raw"],
            in: directory
        )
        #expect(again.status == 64 && again.error.contains("dpv.raw"), "\(again.error)")
    }

    /// `console` over the port: piped scripts and a method run in turn, every run saved.
    @Test func theConsoleRunsScriptsAndMethodsOverThePort() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pico = try PseudoTerminalPico(in: directory)
        defer { _ = pico.stop() }
        let input = """
            var c
            var p
            set_pgstat_mode 2
            set_range ba 100u
            cell_on
            meas_loop_ca p c 200m 10m 100m
              pck_start
              pck_add p
              pck_add c
              pck_end
            endloop
            cell_off

            :run lsv
            :save lsv.csv

            """
        let outcome = try await CommandLineTests.offPool {
            try TestProgram.run(
                try TestProgram.hcipico(),
                ["console", pico.target(), "--csv", "all.csv"],
                in: directory,
                input: Array(input.utf8)
            )
        }
        #expect(outcome.status == 0, "\(outcome.errorText)")
        let all = Self.lines(try String(contentsOf: directory.appendingPathComponent("all.csv"), encoding: .utf8))
        #expect(all.filter { $0.hasPrefix("# end: complete") }.count == 2, "\(all.filter { $0.hasPrefix("# end") })")
        let lsv = Self.lines(try String(contentsOf: directory.appendingPathComponent("lsv.csv"), encoding: .utf8))
        #expect(lsv.contains("# end: complete, 101 packages"), "\(lsv.suffix(2))")
        #expect(lsv.contains("# link: \(pico.path) at 230400 baud"))
    }
}
