import BLETesting
import Testing

/// `--link` values are checked before anything opens: a bad one is a usage error (exit 64).
@Suite struct LinkOptionUsageTests {
    @Test func badLinkValueIsAUsageErrorBeforeAnySocket() throws {
        // No peer: the value is rejected before any transport opens (a port nobody listens on).
        let run = try #require(
            runProgram(
                try builtHCIPico(),
                [
                    "connect", "F0:11:22:33:44:55", "--random", "--transport", "tcp:127.0.0.1:1", "--technique", "lsv",
                    "--link", "7-15,0,2000",
                ]
            )
        )
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--link '7-15,0,2000' at character 1 (interval minimum)"), "\(run.stderr)")
    }
}
