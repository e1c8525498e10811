import BLETesting
import Foundation
import Testing

/// One numbering of runs, loops and scans (from 1) in every output: the per-point CSV, the long CSV,
/// JSON Lines and the live table of `connect`, and the files `export` writes from a rig's journal for
/// the same script. Through the built binary.
@Suite struct NumberingAgreementTests {
    /// A 3-scan CV: 603 packages, 201 per scan.
    static let script = ClosedStandardStreamTests.cv

    /// (package → loop, scan) as the per-point CSV says: columns run, scan, loop, package.
    static func pointCSV(_ text: String) -> (run: Set<Int>, numbers: [Int: [Int]]) {
        var runs: Set<Int> = []
        var numbers: [Int: [Int]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("run,") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).compactMap { Int($0) }
            runs.insert(fields[0])
            numbers[fields[3]] = [fields[2], fields[1]]
        }
        return (runs, numbers)
    }

    /// The same from JSON Lines (one object per value).
    static func jsonLines(_ text: String) throws -> (run: Set<Int>, numbers: [Int: [Int]]) {
        var runs: Set<Int> = []
        var numbers: [Int: [Int]] = [:]
        for line in text.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["event"] as? String == "start" {
                #expect(object["run"] as? Int != nil, "the start event's run is a number: \(line)")
            }
            guard let package = object["package"] as? Int else { continue }
            runs.insert(try #require(object["run"] as? Int))
            numbers[package] = [try #require(object["loop"] as? Int), try #require(object["scan"] as? Int)]
        }
        return (runs, numbers)
    }

    @Test func connectsOutputsAndTheJournalsExportsNumberAlike() async throws {
        let directory = try ClosedStandardStreamTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = try TestProgram.hcipico()
        let connect = try await CommandLineTests.offPool {
            try TestProgram.run(
                binary,
                ["connect", "sim", "--fast", "--script", "CV.mscr", "--csv", "p.csv", "--jsonl", "p.jsonl"],
                in: directory
            )
        }
        #expect(connect.status == 0, "\(connect.errorText)")
        let long = try await CommandLineTests.offPool {
            try TestProgram.run(
                binary,
                ["connect", "sim", "--fast", "--quiet", "--script", "CV.mscr", "--format", "long", "--csv", "l.csv"],
                in: directory
            )
        }
        #expect(long.status == 0, "\(long.errorText)")
        let text = { (name: String) in try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) }

        let point = Self.pointCSV(try text("p.csv"))
        #expect(point.numbers.count == 603)
        #expect(point.numbers[0] == [1, 1] && point.numbers[201] == [1, 2] && point.numbers[602] == [1, 3])
        #expect(point.run == [1])
        let json = try Self.jsonLines(try text("p.jsonl"))
        #expect(json.numbers == point.numbers && json.run == point.run)

        // The long format: device, run, package, loop, scan, …, name, variable: p and c of every package.
        var longNumbers: [Int: [Int]] = [:]
        var names: Set<String> = []
        for line in try text("l.csv").split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("device,") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            longNumbers[Int(fields[2])!] = [Int(fields[3])!, Int(fields[4])!]
            names.insert(String(fields[7]))
        }
        #expect(longNumbers == point.numbers)
        #expect(names == ["p", "c"], "the long format names each value")

        // The live table: `#  loop scan p [V] c [A]`, thinned; every row it shows agrees.
        // (The run's analysis follows the table, from its `the run…` line.)
        let table = connect.outputText.components(separatedBy: "\nthe run")[0]
        let rows = table.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ") }
        #expect(!rows.isEmpty)
        for row in rows where row.count >= 3 {
            let package = try #require(Int(row[0]))
            #expect([Int(row[1]), Int(row[2])] == point.numbers[package].map { $0.map(Optional.some) })
        }

        // A rig runs the same script twice (restarted in between); export writes both runs from the journal.
        let rig = ClosedStandardStreamTests.rigConfig(name: "numbering", schedule: "once")
        try rig.write(to: directory.appendingPathComponent("rig.toml"), atomically: false, encoding: .utf8)
        for _ in 0..<2 {
            let run = try await CommandLineTests.offPool {
                try TestProgram.run(binary, ["rig", "rig.toml"], in: directory)
            }
            #expect(run.status == 0, "\(run.errorText)")
        }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("out"),
            withIntermediateDirectories: false
        )
        let export = try await CommandLineTests.offPool {
            try TestProgram.run(binary, ["export", "rig.sqlite", "--out", "out"], in: directory)
        }
        #expect(export.status == 0, "\(export.errorText)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("out").path)
        for number in [1, 2] {
            let csv = try #require(
                files.first { $0.hasPrefix("cell-1-") && $0.hasSuffix("-run\(number).csv") },
                "run \(number) in \(files)"
            )
            let exported = try text("out/" + csv)
            #expect(exported.contains("# run: \(number)\n"), "the file's name and its provenance agree")
            let numbers = Self.pointCSV(exported)
            #expect(numbers.run == [number])
            #expect(numbers.numbers == point.numbers)
            let jsonl = try Self.jsonLines(try text("out/" + csv.dropLast(4) + ".jsonl"))
            #expect(jsonl.numbers == point.numbers && jsonl.run == [number])
        }
    }
}

/// A simulated run names its noise seed in its provenance, and `--seed` with it repeats the run's data.
@Suite struct SimulatorSeedProvenanceTests {
    @Test func theSeedInTheProvenanceRepeatsTheRun() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["connect", "sim", "--fast", "--quiet", "--technique", "lsv", "--csv", "a.csv"],
                in: directory
            )
        }
        #expect(first.status == 0, "\(first.error)")
        let text = { (name: String) in try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) }
        let link = try #require(try text("a.csv").split(separator: "\n").first { $0.hasPrefix("# link: ") })
        let seed = try #require(link.split(separator: " ").last { UInt64($0) != nil }, "\(link)")
        #expect(link.contains("(--seed \(seed) repeats the run)"))
        let again = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                [
                    "connect", "sim", "--fast", "--quiet", "--technique", "lsv", "--csv", "b.csv", "--seed",
                    String(seed),
                ],
                in: directory
            )
        }
        #expect(again.status == 0, "\(again.error)")
        // The data, without the host's times: the same values, statuses and ranges.
        let values = { (name: String) in
            try text(name).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
                line.split(separator: ",", omittingEmptySubsequences: false).enumerated().filter { $0.offset != 4 }
                    .map(\.element).joined(separator: ",")
            }
        }
        #expect(try values("a.csv") == values("b.csv"))
        #expect(try values("a.csv").count == 102)
    }
}
