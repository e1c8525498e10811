import Foundation
import MethodSCRIPT
import Testing

/// Methods from the command line: `methods` lists what there is, `--technique` with `--set` and
/// `--method FILE` run every technique end to end on the simulator, and what the instrument cannot do is
/// refused by name before anything opens (exit 64, no output written); `check` checks any script.
@Suite struct MethodCommandLineTests {
    static func run(_ arguments: [String], in directory: URL) async throws -> CommandLineTests.Result {
        try await CommandLineTests.offPool { try CommandLineTests.run(arguments, in: directory) }
    }

    @Test func methodsListsEveryTechniqueAndEachOnesParameters() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = try await Self.run(["methods"], in: directory)
        #expect(list.status == 0)
        for technique in Technique.allCases {
            #expect(list.output.contains("\n\(technique.rawValue) "), "\(technique)")
        }
        let cv = try await Self.run(["methods", "cv"], in: directory)
        for parameter in Technique.cv.parameters { #expect(cv.output.contains("\n\(parameter.key) ")) }
        let scanRate = cv.output.split(separator: "\n").first { $0.hasPrefix("scan_rate ") } ?? ""
        #expect(scanRate.split(separator: " ").prefix(3) == ["scan_rate", "V/s", "0.1"], "\(scanRate)")
        #expect(scanRate.contains("above 0 V/s and at most 10 V/s  how fast the potential moves"), "\(scanRate)")
        let script = try await Self.run(["methods", "cv", "--set", "scans=2", "--script"], in: directory)
        #expect(script.output.hasPrefix("e\n") && script.output.contains("nscans(2)\n"))
        #expect(ScriptChecker.check(script.output).isEmpty)
        let bad = try await Self.run(["methods", "nope"], in: directory)
        #expect(bad.status == 64)
    }

    @Test(arguments: Technique.allCases)
    func everyTechniqueRunsEndToEndWithItsPointCount(technique: Technique) async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await Self.run(
            ["connect", "sim", "--fast", "--quiet", "--technique", technique.rawValue, "--csv", "run.csv"],
            in: directory
        )
        #expect(result.status == 0, "\(result.error)")
        let csv = try String(contentsOf: directory.appendingPathComponent("run.csv"), encoding: .utf8)
        let points = Int(try Method(technique: technique).typed.pointCount)
        #expect(csv.contains("# end: complete, \(points) packages"), "\(technique): \(csv.suffix(200))")
    }

    /// Every technique from a method file (its technique and one parameter set to its default), through
    /// `check` and then `connect --method`.
    @Test(arguments: Technique.allCases)
    func everyTechniqueRunsFromAMethodFile(technique: Technique) async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try #require(technique.parameters.first)
        try "technique = \"\(technique.rawValue)\"\n\(first.key) = \(first.defaultValue)\n"
            .write(to: directory.appendingPathComponent("method.toml"), atomically: true, encoding: .utf8)
        let check = try await Self.run(["check", "method.toml"], in: directory)
        let points = Int(try Method(technique: technique).typed.pointCount)
        #expect(check.output == "method.toml: ok (\(technique.rawValue), \(points) points)\n", "\(check.output)")
        let result = try await Self.run(
            ["connect", "sim", "--fast", "--quiet", "--method", "method.toml", "--csv", "run.csv"],
            in: directory
        )
        #expect(result.status == 0, "\(result.error)")
        let csv = try String(contentsOf: directory.appendingPathComponent("run.csv"), encoding: .utf8)
        #expect(csv.contains("# end: complete, \(points) packages"), "\(technique): \(csv.suffix(200))")
    }

    @Test func aMethodFileRunsAndItsProblemsAreLocated() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "technique = \"lsv\"\nbegin_potential = -0.2\nend_potential = 0.2\nstep_potential = 0.02\n"
            .write(to: directory.appendingPathComponent("lsv.toml"), atomically: true, encoding: .utf8)
        let good = try await Self.run(
            ["connect", "sim", "--fast", "--quiet", "--method", "lsv.toml", "--csv", "run.csv"],
            in: directory
        )
        #expect(good.status == 0, "\(good.error)")
        let csv = try String(contentsOf: directory.appendingPathComponent("run.csv"), encoding: .utf8)
        #expect(csv.contains("# end: complete, 21 packages"))
        try "technique = \"lsv\"\nbegin_potential = -0.2\nend_potential = 7\n"
            .write(to: directory.appendingPathComponent("bad.toml"), atomically: true, encoding: .utf8)
        let bad = try await Self.run(
            ["connect", "sim", "--fast", "--method", "bad.toml", "--csv", "bad.csv"],
            in: directory
        )
        #expect(bad.status == 64)
        #expect(
            bad.error.contains("bad.toml:3: end_potential: end_potential = 7 V: must be from -1.7 V to 2 V"),
            "\(bad.error)"
        )
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("bad.csv").path))
    }

    @Test func valuesTheInstrumentCannotDoAreRefusedByNameBeforeAnythingOpens() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [([String], String)] = [
            (["--technique", "cv", "--set", "scan_rate=0"], "--technique cv: scan_rate = 0 V/s: must be above 0 V/s"),
            (
                ["--technique", "eis", "--set", "max_frequency=1e6"],
                "max_frequency = 1000000 Hz: must be from 0.016 Hz"
            ),
            (["--technique", "cv", "--set", "vertex=1"], "cv has no parameter vertex (it has begin_potential"),
            (["--technique", "ca", "--set", "interval_time=x"], "--set interval_time=x: not KEY=VALUE with a number"),
            (["--technique", "dpv", "--set", "pulse_time=0.5"], "the pulse time must be shorter than half a step"),
        ]
        for (arguments, message) in cases {
            let result = try await Self.run(
                ["connect", "sim", "--fast", "--csv", "run.csv"] + arguments,
                in: directory
            )
            #expect(result.status == 64, "\(arguments)")
            #expect(result.error.contains(message), "\(arguments): \(result.error)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("run.csv").path))
        }
    }

    @Test func checkTellsEveryProblemOfAScriptWithItsFileLineAndColumn() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try "e\nvar p\nset_e 3\nmeas_loop_lsv p q 0 1 10m 100m\nendloop\n\n"
            .write(to: directory.appendingPathComponent("bad.mscr"), atomically: true, encoding: .utf8)
        try "e\nvar p\nset_e 300m\n\n".write(
            to: directory.appendingPathComponent("good.mscr"),
            atomically: true,
            encoding: .utf8
        )
        let result = try await Self.run(["check", "good.mscr", "bad.mscr"], in: directory)
        #expect(result.status == 64)
        #expect(result.output.contains("good.mscr: ok"))
        #expect(result.error.contains("bad.mscr:3:7: set_e potential = 3 (3 V): must be from -1.7 V to 2 V (!4205)"))
        #expect(result.error.contains("bad.mscr:4:17: q is not declared (var q) (!420B)"), "\(result.error)")
        // connect refuses the same script before connecting, unless told it knows better.
        let connect = try await Self.run(["connect", "sim", "--fast", "--script", "bad.mscr"], in: directory)
        #expect(connect.status == 64 && connect.error.contains("line 3, column 7"), "\(connect.error)")
    }
}

/// A rig whose devices each run a method (`[device.method]`, one per technique) records every run complete,
/// with the number of packages its parameters imply.
@Suite struct RigMethodCommandLineTests {
    @Test func aRigOfMethodsRecordsEveryTechniquesPoints() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = "[rig]\nname = \"methods\"\njournal = \"rig.sqlite\"\n"
        for technique in Technique.allCases {
            config += "\n[[device]]\nname = \"\(technique.rawValue)\"\ntransport = \"sim\"\nrealtime = false\n"
            config += "schedule = \"once\"\n[device.method]\ntechnique = \"\(technique.rawValue)\"\n"
        }
        try config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        // Every schedule is "once": the rig ends when they are done; `--for` only bounds a failure.
        let rig = try await MethodCommandLineTests.run(["rig", "rig.toml", "--for", "120s"], in: directory)
        #expect(rig.status == 0, "\(rig.error)")
        let runs = try await MethodCommandLineTests.run(["runs", "rig.sqlite", "--json"], in: directory)
        for technique in Technique.allCases {
            let points = Int(try Method(technique: technique).typed.pointCount)
            let line = runs.output.split(separator: "\n").first { $0.contains("\"device\":\"\(technique.rawValue)\"") }
            #expect(line?.contains("\"state\":\"complete\"") == true, "\(technique): \(line ?? "no run")")
            #expect(line?.contains("\"packages\":\(points),") == true, "\(technique): \(line ?? "no run")")
            #expect(line?.contains("\"script\":\"method \(technique.rawValue)\"") == true, "\(line ?? "")")
        }
    }
}

/// The simulated Pico's cell chosen per run (`--sim-cell`) or per rig device (`sim_cell`).
@Suite struct SimulatedCellChoiceTests {
    /// The `c [A]` column of a per-point CSV, by the `p [V]` column.
    static func currents(_ csv: String) -> [Double: Double] {
        let rows = csv.split(separator: "\n").filter { !$0.hasPrefix("#") }
        guard let header = rows.first?.split(separator: ",").map(String.init),
            let p = header.firstIndex(of: "p [V]"), let c = header.firstIndex(of: "c [A]")
        else { return [:] }
        var table: [Double: Double] = [:]
        for row in rows.dropFirst() {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false)
            if let potential = Double(cells[p]), let current = Double(cells[c]) { table[potential] = current }
        }
        return table
    }

    @Test func aResistorOfTheGivenOhmsAnsweredOhmsLaw() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try await MethodCommandLineTests.run(
            ["connect", "sim", "--fast", "--quiet", "--technique", "lsv", "--sim-cell", "resistor:1000", "--csv", "-"],
            in: directory
        )
        #expect(run.status == 0, "\(run.error)")
        let current = try #require(Self.currents(run.output)[0.5])
        #expect(abs(current - 0.5e-3) < 0.5e-5, "\(current) A at 0.5 V across 1 kΩ")
        let bad = try await MethodCommandLineTests.run(["connect", "sim", "--sim-cell", "capacitor"], in: directory)
        #expect(bad.status == 64 && bad.error.contains("--sim-cell capacitor: not one of auto, resistor"))
    }

    @Test func aRigDeviceNamesItsCellAndABadNameIsLocated() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = """
            [rig]
            name = "cells"
            journal = "rig.sqlite"
            [[device]]
            name = "r"
            transport = "sim"
            realtime = false
            schedule = "once"
            sim_cell = "resistor:2000"
            [device.method]
            technique = "lsv"
            """
        try config.write(to: directory.appendingPathComponent("rig.toml"), atomically: true, encoding: .utf8)
        // The schedule is "once": the rig ends when it is done; `--for` only bounds a failure.
        let rig = try await MethodCommandLineTests.run(["rig", "rig.toml", "--for", "120s"], in: directory)
        #expect(rig.status == 0, "\(rig.error)")
        let export = try await MethodCommandLineTests.run(["export", "rig.sqlite", "--out", "out"], in: directory)
        #expect(export.status == 0, "\(export.error)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)
        let csv = try #require(
            files.first { $0.hasSuffix(".csv") && !$0.hasSuffix(".pstrace.csv") && !$0.hasSuffix(".results.csv") }
        )
        let text = try String(contentsOf: directory.appendingPathComponent("out/\(csv)"), encoding: .utf8)
        let current = try #require(Self.currents(text)[0.5])
        #expect(abs(current - 0.25e-3) < 0.25e-5, "\(current) A at 0.5 V across 2 kΩ")
        try config.replacingOccurrences(of: "resistor:2000", with: "diode")
            .write(to: directory.appendingPathComponent("bad.toml"), atomically: true, encoding: .utf8)
        let bad = try await MethodCommandLineTests.run(["rig", "bad.toml", "--check"], in: directory)
        #expect(bad.status == 64)
        #expect(bad.error.contains("bad.toml:9: device \"r\".sim_cell: \"diode\" is not one of auto"), "\(bad.error)")
    }
}
