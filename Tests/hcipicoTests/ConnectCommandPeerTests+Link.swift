import BLETesting
import Foundation
import Testing

/// `hcipico connect … --link … --stats` as built, over H4/TCP against the Bumble peer (`make peers-h4`):
/// (in the `ConnectCommandPeerTests` suite: same filter and gate) one stderr line per tuning step, a refusal as a warning (exit 0), the statistics at the end.
extension ConnectCommandPeerTests {
    @Test func lowLatencyWithStats() async throws {
        let outcome = try await Self.connect(
            peer: ["--mode", "pico"],
            ["--technique", "lsv", "--link", "low-latency", "--stats"]
        )
        #expect(outcome.status == 0, "a refused step is a warning: \(outcome.stderr)")
        let lines = outcome.stderr.split(separator: "\n")
        let steps = lines.filter { $0.hasPrefix("hcipico: link ") }
        #expect(steps.count == 5, "\(outcome.stderr)")
        #expect(steps.allSatisfy { $0.contains("requested") }, "\(steps)")
        let update = try #require(steps.first { $0.hasPrefix("hcipico: link connection: ") })
        #expect(
            update.contains("requested interval 7.5–15 ms, latency 0, timeout 2000 ms; done: interval"),
            "\(update)"
        )
        #expect(
            lines.contains { $0.hasPrefix("hcipico: stats: connection interval") && $0.contains("timeout 2000 ms") }
        )
        #expect(lines.contains { $0.hasPrefix("hcipico: stats: ATT MTU ") })
        let arrivals = try #require(lines.first { $0.hasPrefix("hcipico: stats: notifications ") })
        #expect(arrivals.contains("p50") && arrivals.contains("p99") && arrivals.contains("max"), "\(arrivals)")
        #expect(outcome.csv.last == "# end: complete, 101 packages")
    }
}
