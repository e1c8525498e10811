import BLETesting
import Foundation
import Testing

/// `connect` runs nothing on a real device that the user did not choose; the simulator keeps its CV.
@Suite struct ConnectDefaultsTests {
    @Test func aRealDeviceWithoutAScriptOrTechniqueIsRefusedBeforeAnySocket() throws {
        // No peer listens: the refusal comes before any transport opens.
        let run = try #require(
            runProgram(
                try builtHCIPico(),
                ["connect", "F0:11:22:33:44:55", "--random", "--transport", "tcp:127.0.0.1:1"]
            )
        )
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--script FILE, --technique NAME or --method FILE"), "\(run.stderr)")
    }
}

/// A device error is told once, at the line of the file, and the run's end refers to it.
@Suite struct ConnectDeviceErrorTests {
    @Test func aDeviceErrorIsPrintedOnceWithTheLineOfTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID()).mscr").path
        try "e\nvar c\nvar p\nset_pgstat_mode 2\nstore_var c 5 ja\nset_e c\n\n".write(
            toFile: path,
            atomically: true,
            encoding: .utf8
        )
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try #require(runProgram(try builtHCIPico(), ["connect", "sim", "--fast", "--script", path]))
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "!4205").count == 2, "once: \(run.stderr)")
        #expect(run.stderr.contains("at line 6, column 1: set_e c"), "\(run.stderr)")
        #expect(run.stderr.contains("run incomplete after 0 packages: the device's error above"), "\(run.stderr)")
    }
}
