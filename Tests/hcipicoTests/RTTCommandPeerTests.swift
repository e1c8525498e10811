import BLETesting
import BLEWire
import Foundation
import Testing

/// `hcipico rtt` and `hcipico connect --timing` as built, over H4/TCP against the Bumble peer (the same
/// commands run over the kernel's L2CAP socket in the qemu tier). Runs under `make peers-h4`.
@Suite(
    "hcipico rtt and connect --timing over H4/TCP against the Bumble peer",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct RTTCommandPeerTests {
    /// Starts a peer in `mode`, runs hcipico with `arguments` + the first peripheral's transport options.
    static func run(mode: String, _ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String)
    {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-peer-\(UUID()).log").path
        let peer = try await BumblePeer.start(script: script, arguments: ["--mode", mode], logPath: log)
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        let address = try #require(peer.peripherals.first)
        let link = [address.description, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)"]
        return try #require(runProgram(try builtHCIPico(), [arguments[0]] + link + arguments.dropFirst()))
    }

    @Test func roundTripsOnTheEchoPeripheralAreTimedAsJSON() async throws {
        let run = try await Self.run(mode: "echo", ["rtt", "--count", "60", "--size", "20", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any],
            "\(run.stdout)"
        )
        let rtt = try #require(object["write_cmd"] as? [String: Any])
        #expect(rtt["n"] as? Int == 60)
        #expect(rtt["size"] as? Int == 20)
        let median = try #require(rtt["median_ms"] as? Double)
        let p95 = try #require(rtt["p95_ms"] as? Double)
        let minimum = try #require(rtt["min_ms"] as? Double)
        #expect(minimum > 0 && minimum <= median && median <= p95)
        #expect(try #require(rtt["cpu_us_per_rtt"] as? Double) > 0)
        #expect(object["mtu"] as? Int ?? 0 >= 23)
    }

    @Test func aPeripheralThatDoesNotEchoTimesOut() async throws {
        // The Pico answers lines, not these bytes: nothing comes back.
        let run = try await Self.run(mode: "pico", ["rtt", "--count", "5", "--echo-timeout", "1"])
        #expect(run.status == 5, "\(run.stderr)")
        #expect(run.stderr.contains("no echo of round trip 1"), "\(run.stderr)")
    }

    @Test func connectTimingNamesTheFirstDecodedSample() async throws {
        let run = try await Self.run(mode: "pico", ["connect", "--technique", "lsv", "--quiet", "--timing"])
        #expect(run.status == 0, "\(run.stderr)")
        let line = try #require(run.stderr.split(separator: "\n").first { $0.hasPrefix("hcipico: timing: ") })
        let firstSample = try #require(line.split(separator: "first decoded sample ").last?.split(separator: " ").first)
        let opened = try #require(line.split(separator: "subscribed) ").last?.split(separator: " ").first)
        let (first, open) = (try #require(Double(firstSample)), try #require(Double(opened)))
        #expect(open > 0 && first > open, "\(line)")
    }
}
