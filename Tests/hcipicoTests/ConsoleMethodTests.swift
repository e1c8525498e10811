import BLETesting
import Foundation
import Testing

/// Methods in the console: a first one from the command line, then `:run NAME KEY=VALUE …` and
/// `:method FILE` at the prompt; a refused one is told by name and the console goes on.
@Suite struct ConsoleMethodTests {
    @Test func methodsRunFromTheCommandLineAndThePrompt() throws {
        let method = "technique = \"ca\"\nrun_time = 1\ninterval_time = 0.1\n"
        let input = ":run lsv step_potential=0.1\n:run cv scan_rate=0\n:run nope\n:method ca.toml\n:method none.toml\n"
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
        // eis (5 frequencies), lsv (-0.5 V to 0.5 V in 0.1 V steps: 11), then the file's ca (10 points).
        #expect(ends.count == 3, "\(ends)")
        for (end, packages) in zip(ends, [5, 11, 10]) {
            #expect(end.contains("\"packages\":\(packages)"), "\(end)")
        }
        #expect(outcome.errorText.contains("scan_rate = 0 V/s: must be above 0 V/s"), "\(outcome.errorText)")
        #expect(outcome.errorText.contains(":run: no technique nope (there are lsv, cv"), "\(outcome.errorText)")
        #expect(outcome.errorText.contains("none.toml: cannot read it"), "\(outcome.errorText)")
    }
}
