import BLETesting
import BLEWire
import Foundation
import Testing

/// `hcipico connect ADDRESS --transport tcp:…` as built, against the Bumble peer: our HCI host over
/// H4/TCP to an emulated controller, an emulated link, and a Bumble-hosted Pico peripheral. Runs when
/// `HCIPICO_PEER_SCRIPT` names `Tests/Peers/run-peer.sh` (`make peers-h4`), skipped otherwise.
@Suite(
    "hcipico connect over H4/TCP against the Bumble peer",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct ConnectCommandPeerTests {
    struct Outcome {
        let status: Int32
        let stderr: String
        let csv: [Substring]
        let btsnoop: [UInt8]
    }

    /// Starts a peer with `peerArguments`, runs `hcipico connect` on its first peripheral, returns the
    /// exit status, standard error and the CSV lines.
    static func connect(peer peerArguments: [String], _ arguments: [String]) async throws -> Outcome {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-peer-\(UUID()).log").path
        let peer = try await BumblePeer.start(script: script, arguments: peerArguments, logPath: log)
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        let address = try #require(peer.peripherals.first)
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-\(UUID()).csv").path
        let capture = csv + ".btsnoop"
        defer {
            try? FileManager.default.removeItem(atPath: csv)
            try? FileManager.default.removeItem(atPath: capture)
        }
        let run = try #require(
            runProgram(
                try builtHCIPico(),
                ["connect", address.description, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)"]
                    + arguments + ["--csv", csv, "--btsnoop", capture, "--quiet"]
            )
        )
        let lines = (try? String(contentsOfFile: csv, encoding: .utf8))?.split(separator: "\n") ?? []
        let btsnoop = FileManager.default.contents(atPath: capture).map { Array($0) } ?? []
        return Outcome(status: run.status, stderr: run.stderr, csv: lines, btsnoop: btsnoop)
    }

    @Test func lsvRunsEndToEndAndIsRecorded() async throws {
        let outcome = try await Self.connect(peer: ["--mode", "pico"], ["--technique", "lsv"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.csv.last == "# end: complete, 101 packages")
        // The per-point table: provenance, the header with the script's names, a row per point.
        #expect(outcome.csv.contains("run,scan,loop,package,host_time,p [V],c [A],c status,c range [A]"))
        #expect(outcome.csv.contains { $0.hasPrefix("# firmware: ") && $0.contains("espico") })
        let rows = outcome.csv.filter { !$0.hasPrefix("#") && !$0.hasPrefix("run,") }
        try #require(rows.count == 101)
        // 1 % of E/10 kΩ, plus 10 nA of offset near 0 V (the peer adds a few nA, as a device does).
        for row in rows {
            let fields = row.split(separator: ",", omittingEmptySubsequences: false)
            let volts = try #require(Double(fields[5]))
            let amperes = try #require(Double(fields[6]))
            #expect(abs(amperes - volts / 10_000) <= 0.01 * abs(volts / 10_000) + 10e-9, "\(row)")
        }
        // The capture holds the whole exchange: HCI commands sent, events and ACL both ways.
        let records = try outcome.btsnoop.withUnsafeBytes { bytes in try BTSnoopRecord.parseFile(bytes) }
        #expect(records.contains { $0.indicator == .command && !$0.received })
        #expect(records.contains { $0.indicator == .event && $0.received })
        #expect(records.filter { $0.indicator == .acl && $0.received }.count > 101)
        #expect(records.contains { $0.indicator == .acl && !$0.received })
    }

    @Test func aDisconnectMidRunKeepsWhatArrivedAndSaysSo() async throws {
        let outcome = try await Self.connect(
            peer: ["--mode", "pico", "--disconnect-after", "8", "--chunk", "20"],
            ["--technique", "lsv"]
        )
        #expect(outcome.status == 4, "connection lost: \(outcome.stderr)")
        #expect(outcome.csv.dropLast().last?.hasPrefix("# end: incomplete") == true, "\(outcome.csv.suffix(2))")
        // The link went with the device: what became of its cell is not known, and the file says so.
        #expect(outcome.csv.last?.hasPrefix("# cell: cell state unknown: the link was lost") == true)
        #expect(outcome.csv.first?.hasPrefix("# tool: hcipico") == true)
    }
}
