import BLETesting
import Foundation
import Testing

/// A hostile peripheral floods the built `hcipico gatt … subscribe` over H4/TCP with three waves of
/// 150,000 L2CAP Connection Parameter Update Requests, every one of which the host rejects. Whatever
/// the host keeps per request shows in the process's resident memory: it must not grow by more than
/// 2 MB over the three waves (34.3 → 42.8 MB here, one queued answer kept per request, before the
/// answers waiting for ACL credits were bounded; 33.6 → 33.8 MB after). Runs when `HCIPICO_PEER_SCRIPT` names `Tests/Peers/run-peer.sh` (`make peers-h4`).
@Suite(
    "hcipico gatt subscribe under a flood of signaling requests",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct SignalingFloodPeerTests {
    static let requestsPerWave = 150_000
    static let limit = 2 * 1024 * 1024

    /// The process's resident set, in bytes (`VmRSS` of /proc/PID/status).
    static func residentBytes(_ pid: pid_t) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }

    /// The resident set once it has stopped moving (two reads half a second apart agree; at most 20 s):
    /// the host has read what the controller had for it.
    static func settledResidentBytes(_ pid: pid_t) async -> Int? {
        var last = residentBytes(pid) ?? 0
        _ = await eventually(.seconds(20), every: .milliseconds(500)) {
            let now = residentBytes(pid) ?? 0
            defer { last = now }
            return now == last
        }
        return residentBytes(pid)
    }

    @Test func threeWavesOfRejectedRequestsLeaveTheResidentSetFlat() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-flood-\(UUID()).log").path
        let peer = try await BumblePeer.start(
            script: script,
            arguments: [
                "--mode", "echo", "--signal-flood", "\(Self.requestsPerWave)", "--signal-waves", "3",
                "--signal-flood-delay", "5", "--signal-wave-pause", "3",
            ],
            logPath: log
        )
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        let address = try #require(peer.peripherals.first)
        let program = try TestProgram(
            try builtHCIPico(),
            [
                "gatt", address.description, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)",
                "subscribe", GATTCommandPeerTests.vspTX,
            ]
        )
        defer { program.send(SIGTERM) }
        #expect(await eventually(.seconds(30)) { peer.events.contains { $0.contains("\"subscribed\"") } })
        // Before the first wave (it starts 5 s after the connection): the command's working size.
        let before = try #require(await Self.settledResidentBytes(program.pid))
        var after: [Int] = []
        for wave in 1...3 {
            let reported = await eventually(.seconds(240)) {
                peer.events.contains { $0.contains("\"signal-flood-wave\"") && $0.contains("\"wave\": \(wave)") }
            }
            try #require(reported, "wave \(wave) was not sent: \(peer.events.suffix(3))")
            after.append(try #require(await Self.settledResidentBytes(program.pid)))
        }
        let megabytes = ([before] + after).map { String(format: "%.1f", Double($0) / 1_048_576) }
        print("signaling flood: RSS before and after each wave: \(megabytes.joined(separator: " → ")) MB")
        #expect(after[2] - before <= Self.limit, "RSS \(megabytes.joined(separator: " → ")) MB")
        #expect(!peer.events.contains { $0.contains("\"disconnected\"") }, "the link held through the flood")
        program.send(SIGTERM)
        let outcome = await program.finishAsync()
        #expect(outcome.status == 143, "\(outcome.errorText.suffix(500))")
    }
}
