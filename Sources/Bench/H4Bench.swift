import BLEHost
import BLELinux
import BLETesting
import Foundation

/// `Bench h4`: our `HCIHost` and Bumble's own host (`Tests/Peers/anchor.py`), one after the other,
/// against the same Bumble peer (echo peripheral, controller exposed as H4 over TCP), at LE ACL
/// buffers of 27 and 251 octets: write → notify round trips (write command and write request;
/// median, p99) and the notification rate of a 2000 × 244-octet blast, with the CPU time our process
/// and the peer process spent during the blast (to show which side caps the rate).
enum H4Bench {
    static let suite = BenchSuite(
        name: "h4",
        summary: "HCIHost over H4/TCP vs Bumble's host on the same Bumble peer: RTT and notifications/s"
    ) { json in
        let script = ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] ?? "Tests/Peers/run-peer.sh"
        guard FileManager.default.isExecutableFile(atPath: script) else {
            print("h4: \(script) not found; run from the checkout or set HCIPICO_PEER_SCRIPT")
            return
        }
        let anchorScript = URL(fileURLWithPath: script).deletingLastPathComponent().appendingPathComponent("anchor.py")
            .path
        var results: [Result] = []
        for length in [27, 251] {
            results.append(try await measure(script: script, anchor: anchorScript, aclLength: length))
        }
        if json {
            print("{\"suite\":\"h4\",\"results\":[\(results.map(\.json).joined(separator: ","))]}")
        } else {
            print(
                "h4: HCIHost (ours) vs Bumble host (anchor), same peer, same run; \(rounds) round trips, \(blastCount) × \(blastSize) B blast"
            )
            for result in results { result.printTable() }
        }
    }

    static let rounds = 200
    static let blastCount = 2000
    static let blastSize = 244

    struct Latency {
        var median: Double
        var p99: Double
        init(_ samples: [Duration]) {
            let sorted = samples.map(\.inMilliseconds)
                .sorted()
            median = sorted[sorted.count / 2]
            p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        }
        init(median: Double, p99: Double) {
            self.median = median
            self.p99 = p99
        }
    }

    struct Side {
        var writeCommand: Latency
        var writeRequest: Latency
        var notificationsPerSecond: Double
        var ownCPU: Double?
        var peerCPU: Double?
        /// Heap allocations in the whole host process during the blast, per notification.
        var allocationsPerNotification: Double?
    }

    struct Result {
        let aclLength: Int
        let ours: Side
        let anchor: Side

        var json: String {
            func side(_ side: Side) -> String {
                "{\"rtt_write_cmd_median_ms\":\(r(side.writeCommand.median)),\"rtt_write_cmd_p99_ms\":\(r(side.writeCommand.p99)),"
                    + "\"rtt_write_req_median_ms\":\(r(side.writeRequest.median)),\"rtt_write_req_p99_ms\":\(r(side.writeRequest.p99)),"
                    + "\"notifications_per_s\":\(r(side.notificationsPerSecond)),\"blast_cpu_host\":\(side.ownCPU.map(r) ?? "null"),"
                    + "\"blast_cpu_peer\":\(side.peerCPU.map(r) ?? "null"),"
                    + "\"blast_allocations_per_notification\":\(side.allocationsPerNotification.map(r) ?? "null")}"
            }
            return "{\"le_acl_len\":\(aclLength),\"ours\":\(side(ours)),\"bumble_host\":\(side(anchor))}"
        }

        func printTable() {
            print("  LE ACL buffer \(aclLength) B                 ours      Bumble host   ours/Bumble")
            row("RTT write cmd median (ms)", ours.writeCommand.median, anchor.writeCommand.median)
            row("RTT write cmd p99 (ms)", ours.writeCommand.p99, anchor.writeCommand.p99)
            row("RTT write req median (ms)", ours.writeRequest.median, anchor.writeRequest.median)
            row("RTT write req p99 (ms)", ours.writeRequest.p99, anchor.writeRequest.p99)
            row("notifications/s", ours.notificationsPerSecond, anchor.notificationsPerSecond)
            row("blast CPU, host process (cores)", ours.ownCPU ?? .nan, anchor.ownCPU ?? .nan)
            row("blast CPU, peer process (cores)", ours.peerCPU ?? .nan, anchor.peerCPU ?? .nan)
            row("blast allocations / notification", ours.allocationsPerNotification ?? .nan, .nan)
        }

        private func row(_ name: String, _ ours: Double, _ anchor: Double) {
            let pad = String(repeating: " ", count: max(1, 34 - name.count))
            let ratio = anchor.isFinite && anchor > 0 && ours.isFinite ? r(ours / anchor) + "×" : "–"
            print("  \(name)\(pad)\(column(ours))  \(column(anchor))  \(ratio)")
        }

        private func column(_ value: Double) -> String {
            let text = value.isFinite ? r(value) : "–"
            return String(repeating: " ", count: max(0, 10 - text.count)) + text
        }
    }

    static func r(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String((value * 1000).rounded() / 1000)
    }
}
