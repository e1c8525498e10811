import Foundation
import Testing

/// A mistyped subcommand gets a suggestion and exit 64; a technique is taken in any case.
@Suite struct MistypedCommandLineTests {
    @Test func aMistypedSubcommandIsAnsweredWithTheOneItWasProbablyMeantToBe() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (typed, meant) in [("conect", "connect"), ("rgi", "rig"), ("exprot", "export"), ("GATT", "gatt")] {
            let result = try await CommandLineTests.offPool { try CommandLineTests.run([typed, "sim"], in: directory) }
            #expect(result.status == 64, "\(typed): \(result.error)")
            #expect(result.error.contains("'\(typed)' is not a command; did you mean '\(meant)'?"), "\(result.error)")
        }
        // Nothing near enough (or two equally near): ArgumentParser's own message, still 64.
        let unknown = try await CommandLineTests.offPool { try CommandLineTests.run(["xyz"], in: directory) }
        #expect(unknown.status == 64 && !unknown.error.contains("did you mean"), "\(unknown.error)")
    }

    @Test func aTechniqueIsTakenInAnyCase() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await CommandLineTests.offPool {
            try CommandLineTests.run(["connect", "sim", "--fast", "--technique", "LSV", "--quiet"], in: directory)
        }
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("espico"), "\(result.output)")
    }
}
