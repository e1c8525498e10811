import BLEHost
import BLELinux
import BLETesting
import BLEWire
import Foundation

/// `Bench pairing`: our `HCIHost` and Bumble's own host (`Tests/Peers/anchor.py --scenario pairing`), one
/// after the other, against the same Bumble peer over H4/TCP whose value needs an encrypted link: LE
/// Secure Connections pairing (Just Works, bonding) + the first read of that value, then a reconnect
/// that encrypts from the bond + the same read (connect, LE Enable Encryption, MTU exchange, read).
/// The link is emulated (no radio timing), so the figures are the hosts' own cost; the targets
/// (1.5 s and 0.3 s) are for a radio link.
enum PairingBench {
    static let suite = BenchSuite(
        name: "pairing",
        summary: "pair + encrypted read, reconnect from the bond + read: HCIHost vs Bumble's host, same peer"
    ) { json in
        let script = ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] ?? "Tests/Peers/run-peer.sh"
        guard FileManager.default.isExecutableFile(atPath: script) else {
            print("pairing: \(script) not found; run from the checkout or set HCIPICO_PEER_SCRIPT")
            return
        }
        let anchor = URL(fileURLWithPath: script).deletingLastPathComponent().appendingPathComponent("anchor.py").path
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("bench-pairing-peer.log").path
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "echo", "--pairing", "sc", "--protect"],
            logPath: log
        )
        defer { peer.stop() }
        let ours = try await runOurs(peer)
        let theirs = try runAnchor(anchor, peer: peer)
        if json {
            print(
                "{\"suite\":\"pairing\",\"rounds\":\(rounds),\"ours\":\(ours.json),\"bumble_host\":\(theirs.json)}"
            )
        } else {
            print("pairing: HCIHost (ours) vs Bumble host, same peer, same run; \(rounds) rounds; median / max ms")
            print("  what                              ours            Bumble host     ours/Bumble  target")
            for (name, mine, other, target) in [
                ("pair + first encrypted read", ours.pair, theirs.pair, "1500"),
                ("reconnect from bond + read", ours.reconnect, theirs.reconnect, "300"),
            ] {
                print(
                    "  \(name.padding(toLength: 32, withPad: " ", startingAt: 0))  "
                        + "\(f(mine.median)) / \(f(mine.max))   \(f(other.median)) / \(f(other.max))   "
                        + "\(String(format: "%.2f", mine.median / other.median))×        ≤ \(target)"
                )
            }
        }
    }

    static let rounds = 20

    struct Times {
        var median: Double
        var max: Double
        init(_ samples: [Double]) {
            let sorted = samples.sorted()
            median = sorted[sorted.count / 2]
            max = sorted.last ?? .nan
        }
        init(median: Double, max: Double) {
            self.median = median
            self.max = max
        }
        var json: String { "{\"median_ms\":\(r(median)),\"max_ms\":\(r(max))}" }
    }

    struct Side {
        var pair: Times
        var reconnect: Times
        var json: String { "{\"pair_read\":\(pair.json),\"reconnect_read\":\(reconnect.json)}" }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let encryptedValue = Array("sealed with an encrypted link".utf8)

    static func runOurs(_ peer: BumblePeer) async throws -> Side {
        let host = HCIHost(transport: try H4StreamTransport.connectTCP(host: "127.0.0.1", port: peer.port))
        do {
            try await host.start()
            let side = try await rounds(on: host, peer: peer)
            await host.shutdown()
            return side
        } catch {
            await host.shutdown()
            throw error
        }
    }

    private static func rounds(on host: HCIHost, peer: BumblePeer) async throws -> Side {
        guard let address = peer.peripherals.first else { throw Failure(description: "peer lists no peripheral") }
        var pairing: [Double] = []
        var again: [Double] = []
        var handle: UInt16?
        for _ in 0..<rounds {
            let connection = try await host.connect(to: address)
            let client = try await GATTClient.connect(transport: connection.att, mtu: 247)
            if handle == nil {
                handle = try await client.characteristic(
                    BluetoothUUID("53656375-0001-4000-8000-00805f9b34fb")!,
                    inService: BluetoothUUID("53656375-0000-4000-8000-00805f9b34fb")!
                ).valueHandle
            }
            guard let handle else { throw Failure(description: "no encrypted value on the peer") }
            var start = ContinuousClock.now
            let bond = try await connection.pair(PairingOptions()).bond
            guard try await client.read(handle) == encryptedValue else { throw Failure(description: "wrong value") }
            pairing.append((ContinuousClock.now - start).inMilliseconds)
            try await connection.disconnect()
            start = ContinuousClock.now
            let reconnected = try await host.connect(to: address)
            try await reconnected.startEncryption(bond)
            let again2 = try await GATTClient.connect(transport: reconnected.att, mtu: 247)
            guard try await again2.read(handle) == encryptedValue else { throw Failure(description: "wrong value") }
            again.append((ContinuousClock.now - start).inMilliseconds)
            try await reconnected.disconnect()
        }
        return Side(pair: Times(pairing), reconnect: Times(again))
    }

    static func runAnchor(_ anchor: String, peer: BumblePeer) throws -> Side {
        let data = try AnchorProcess.run(
            anchor,
            ["--port", "\(peer.port)", "--scenario", "pairing", "--rounds", "\(rounds)"]
        )
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["ok"] as? Bool == true,
            let pair = object["pair_read"] as? [String: Any], let again = object["reconnect_read"] as? [String: Any]
        else {
            throw Failure(description: "anchor.py: \(String(decoding: data, as: UTF8.self).prefix(400))")
        }
        func times(_ entry: [String: Any]) -> Times {
            Times(median: entry["median_ms"] as? Double ?? .nan, max: entry["max_ms"] as? Double ?? .nan)
        }
        return Side(pair: times(pair), reconnect: times(again))
    }

    static func f(_ value: Double) -> String { String(format: "%6.1f", value) }
    static func r(_ value: Double) -> String { String(format: "%.3f", value) }
}
