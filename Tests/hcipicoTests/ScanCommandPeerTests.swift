import BLETesting
import BLEWire
import Foundation
import Glibc
import Testing

/// `hcipico scan --transport tcp:…` as built, against the Bumble peer with two peripherals
/// (PicoSim at F0:11:22:33:44:55, PicoSim2 at …:56, both advertising the VSP service). Runs when
/// `HCIPICO_PEER_SCRIPT` names `Tests/Peers/run-peer.sh` (`make peers-h4`), skipped otherwise.
@Suite(
    "hcipico scan over H4/TCP against the Bumble peer",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct ScanCommandPeerTests {
    struct Scan {
        let status: Int32
        let stderr: String
        let objects: [[String: Any]]
        let stdout: String
    }

    /// Runs `hcipico scan` with `arguments` against the peer for `seconds`.
    static func scan(_ peer: BumblePeer, _ arguments: [String], seconds: Int = 1) throws -> Scan {
        let run = try #require(
            runProgram(
                try builtHCIPico(),
                ["scan", "--transport", "tcp:127.0.0.1:\(peer.port)", "--timeout", "\(seconds)"] + arguments
            )
        )
        let objects = run.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
        return Scan(status: run.status, stderr: run.stderr, objects: objects, stdout: run.stdout)
    }

    @Test func findsBothPeripheralsAndFilters() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-peer-\(UUID()).log").path
        let peer = try await BumblePeer.start(script: script, arguments: ["--peripherals", "2"], logPath: log)
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        #expect(peer.peripherals.map(\.description) == ["F0:11:22:33:44:55", "F0:11:22:33:44:56"])

        // `hcipico adapters` over the same transport: what the emulated controller reported.
        let adapters = try #require(
            runProgram(try builtHCIPico(), ["adapters", "--transport", "tcp:127.0.0.1:\(peer.port)"])
        )
        #expect(adapters.status == 0, "\(adapters.stderr)")
        #expect(adapters.stdout.hasPrefix("tcp:127.0.0.1:\(peer.port)  00:00:5E:00:53:01\n"), "\(adapters.stdout)")
        #expect(adapters.stdout.contains("ACL buffers 8 × 27 bytes (LE Read Buffer Size v2)"), "\(adapters.stdout)")
        #expect(adapters.stdout.contains("scanning legacy"), "\(adapters.stdout)")

        // Default: the devices advertising the VSP service, one JSON object each.
        let both = try Self.scan(peer, ["--json"], seconds: 3)
        #expect(both.status == 0, "\(both.stderr)")
        let byAddress = Dictionary(both.objects.map { ($0["address"] as? String ?? "?", $0) }) { first, _ in first }
        #expect(both.objects.count == 2, "one line per device: \(both.stdout)")
        for (address, name) in [("F0:11:22:33:44:55", "PicoSim"), ("F0:11:22:33:44:56", "PicoSim2")] {
            let object = try #require(byAddress[address], "\(address) not found: \(both.stdout)")
            #expect(object["name"] as? String == name)
            #expect(object["addressType"] as? String == "random")
            #expect(object["services"] as? [String] == ["569A1101-B87F-490C-92CB-11BA5EA5167C"])
            #expect(object["connectable"] as? Bool == true)
            #expect(object["rssi"] is Int)
        }

        // A name prefix narrows to one.
        let one = try Self.scan(peer, ["--json", "--name", "PicoSim2"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.objects.map { $0["address"] as? String } == ["F0:11:22:33:44:56"])

        // Another service: nothing matches, and stderr says how many were seen; --all shows them.
        let none = try Self.scan(peer, ["--service", "hm10"])
        #expect(none.status == 0, "\(none.stderr)")
        #expect(none.stdout.isEmpty)
        #expect(none.stderr.contains("no matching device found (2 devices seen)"), "\(none.stderr)")
        let all = try Self.scan(peer, ["--all"])
        #expect(all.status == 0, "\(all.stderr)")
        let rows = all.stdout.split(separator: "\n")
        #expect(rows.first?.hasPrefix("ADDRESS") == true && rows.count == 3, "\(all.stdout)")
        #expect(rows.dropFirst().allSatisfy { $0.contains("random") && $0.contains("Laird VSP") }, "\(all.stdout)")
    }

    /// Ctrl-C (SIGINT) ends an unlimited scan with exit 0 and SIGTERM a timed one with 130; both
    /// after printing what was found, and both disable the scan first (the peer's capture of the
    /// controller's HCI traffic has LE Set Scan Enable off after each enable).
    @Test func signalsEndTheScanCleanlyAndDisableIt() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-peer-\(UUID()).log").path
        let capture = log + ".btsnoop"
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--peripherals", "2", "--btsnoop", capture],
            logPath: log
        )
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
            try? FileManager.default.removeItem(atPath: capture)
        }
        for (signal, timeout, expected) in [(SIGINT, "0", Int32(0)), (SIGTERM, "30", Int32(143))] {
            let running = try TestProgram(
                try builtHCIPico(),
                ["scan", "--json", "--transport", "tcp:127.0.0.1:\(peer.port)", "--timeout", timeout]
            )
            _ = await running.waitAsync(until: { running.outputText.split(separator: "\n").count >= 2 })
            running.send(signal)
            let outcome = await running.finishAsync()
            #expect(outcome.status == expected, "signal \(signal): \(outcome.errorText)")
            #expect(outcome.outputText.split(separator: "\n").count == 2, "\(outcome.outputText)")
        }
        let bytes = try #require(FileManager.default.contents(atPath: capture).map { Array($0) })
        let records = try bytes.withUnsafeBytes { try BTSnoopRecord.parseFile($0) }
        let scanEnables = records.filter { $0.indicator == .command && $0.packet.starts(with: [0x0C, 0x20]) }
        #expect(scanEnables.map { Array($0.packet.dropFirst(3)) } == [[1, 1], [0, 0], [1, 1], [0, 0]])
    }
}
