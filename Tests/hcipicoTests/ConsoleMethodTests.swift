import BLETesting
import Foundation
import MethodSCRIPT
import Testing

/// Methods in the console: a first one from the command line, then `:run NAME KEY=VALUE …` and
/// `:method FILE` at the prompt (every technique's defaults among them); a refused one is told by name and the
/// console goes on.
@Suite struct ConsoleMethodTests {
    @Test func methodsRunFromTheCommandLineAndThePrompt() throws {
        let method = "technique = \"ca\"\nrun_time = 1\ninterval_time = 0.1\n"
        let every = Technique.allCases.map { ":run \($0.rawValue)\n" }.joined()
        let input =
            ":run lsv step_potential=0.1\n:run cv scan_rate=0\n:run nope\n:method ca.toml\n:method none.toml\n" + every
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try method.write(to: directory.appendingPathComponent("ca.toml"), atomically: true, encoding: .utf8)
        let outcome = try TestProgram.run(
            try builtHCIPico(),
            ["console", "sim", "--fast", "--technique", "eis", "--set", "frequencies=5", "--jsonl", "runs.jsonl"],
            in: directory,
            input: Array(input.utf8)
        )
        #expect(outcome.status == 0, "\(outcome.errorText)")
        let jsonl = try String(contentsOf: directory.appendingPathComponent("runs.jsonl"), encoding: .utf8)
        let ends = jsonl.split(separator: "\n").filter { $0.contains("\"event\":\"end\"") }
        // eis (5 frequencies), lsv (-0.5 V to 0.5 V in 0.1 V steps: 11), the file's ca (10 points), then
        // every technique with its defaults.
        let defaults = try Technique.allCases.map { Int(try Method(technique: $0).typed.pointCount) }
        #expect(ends.count == 3 + defaults.count, "\(ends)")
        for (end, packages) in zip(ends, [5, 11, 10] + defaults) {
            #expect(end.contains("\"packages\":\(packages)"), "\(end)")
        }
        #expect(outcome.errorText.contains("scan_rate = 0 V/s: must be above 0 V/s"), "\(outcome.errorText)")
        #expect(outcome.errorText.contains(":run: no technique nope (there are lsv, cv"), "\(outcome.errorText)")
        #expect(outcome.errorText.contains("none.toml: cannot read it"), "\(outcome.errorText)")
    }
}
