import BLETesting
import BLEWire
import Foundation
import Testing

/// `hcipico gatt ADDRESS --transport tcp:…` as built, against the Bumble peer in echo mode: our HCI
/// host over H4/TCP, an emulated link, and a Bumble-hosted VSP service that notifies every RX write
/// back on TX. Runs when `HCIPICO_PEER_SCRIPT` names `Tests/Peers/run-peer.sh` (`make peers-h4`).
@Suite(
    "hcipico gatt over H4/TCP against the Bumble peer",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct GATTCommandPeerTests {
    static let vspTX = "569a2000-b87f-490c-92cb-11ba5ea5167c"
    static let vspRX = "569a2001-b87f-490c-92cb-11ba5ea5167c"

    /// Starts an echo peer and runs each of `commands` (`hcipico gatt ADDRESS --random --transport …`
    /// then the command's own arguments) one after the other, each on a new connection.
    static func run(_ commands: [[String]]) async throws -> [(status: Int32, stdout: String, stderr: String)] {
        try await withEchoPeer { peer, link, binary in
            var results: [(status: Int32, stdout: String, stderr: String)] = []
            for command in commands { results.append(try #require(runProgram(binary, link + command))) }
            return results
        }
    }

    /// Starts an echo peer and runs `body` with it, the `hcipico gatt ADDRESS --random --transport …`
    /// words that reach it and the built binary; stops the peer afterwards.
    static func withEchoPeer<Result>(
        _ body: (BumblePeer, [String], String) async throws -> Result
    ) async throws -> Result {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-peer-\(UUID()).log").path
        let peer = try await BumblePeer.start(script: script, arguments: ["--mode", "echo"], logPath: log)
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        let address = try #require(peer.peripherals.first)
        let binary = try builtHCIPico()
        let link = ["gatt", address.description, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)"]
        return try await body(peer, link, binary)
    }

    @Test func servicesReadSubscribeAndWriteOverTheEmulatedLink() async throws {
        let hello = Array("hello over GATT".utf8).map { String(format: "%02x", $0) }.joined()
        let results = try await Self.run([
            ["services"],
            ["read", "2A00", "--text"],
            [
                "subscribe", Self.vspTX, "--count", "2", "--format", "jsonl", "--write-to", Self.vspRX,
                "--write", hello, "--write", "00ff",
            ],
            ["write", Self.vspRX, "--text", "no one listens", "--without-response"],
            ["mtu", "--request", "100"],
        ])
        let (services, name, subscribe, write, mtu) = (results[0], results[1], results[2], results[3], results[4])
        #expect(services.status == 0, "\(services.stderr)")
        for line in [
            "service 1800 GAP", "2A00 Device Name  [read]", "\"PicoSim\"",
            "service 569A1101-B87F-490C-92CB-11BA5EA5167C Laird Virtual Serial Port service",
            "characteristic 569A2000-B87F-490C-92CB-11BA5EA5167C Laird VSP TX (module to central; notify)  [notify]",
            "characteristic 569A2001-B87F-490C-92CB-11BA5EA5167C Laird VSP RX",
            "descriptor 2902 Client Characteristic Configuration",
        ] {
            #expect(services.stdout.contains(line), "\(line) missing from:\n\(services.stdout)")
        }
        #expect(name.status == 0 && name.stdout == "PicoSim\n", "\(name.stdout) \(name.stderr)")
        #expect(subscribe.status == 0, "\(subscribe.stderr)")
        let values = subscribe.stdout.split(separator: "\n").map { line -> String? in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["value_hex"] as? String
        }
        #expect(values == [hello, "00ff"], "\(subscribe.stdout)")
        #expect(subscribe.stdout.contains("\"text\":\"hello over GATT\""))
        #expect(write.status == 0, "\(write.stderr)")
        #expect(mtu.status == 0 && mtu.stdout == "100\n", "\(mtu.stdout) \(mtu.stderr)")
    }

    /// SIGINT, SIGTERM and SIGHUP during `gatt subscribe` against Bumble's own host: the peer sees its
    /// TX subscription turned off (CCCD 0) and then the disconnection, and the status names the signal.
    @Test func everySignalTurnsTheSubscriptionOffAtThePeer() async throws {
        try await Self.withEchoPeer { peer, link, binary in
            for (number, (signal, status)) in [(SIGINT, Int32(130)), (SIGTERM, 143), (SIGHUP, 129)].enumerated() {
                let program = try TestProgram(
                    binary,
                    link + ["subscribe", Self.vspTX, "--write-to", Self.vspRX, "--write", "68656c6c6f"]
                )
                _ = await program.waitAsync(until: { program.outputText.contains("68656c6c6f") })
                let sent = ContinuousClock.now
                program.send(signal)
                let outcome = await program.finishAsync()
                let took = ContinuousClock.now - sent
                #expect(outcome.status == status, "\(outcome.errorText)")
                // Promptly, not by a timeout: the peer's events below show the turn-off was done, so this
                // bound only catches a hang (a loaded machine took 2.3 s).
                #expect(took < .seconds(5), "took \(took)")
                // The peer reports what it handled as it goes: wait (bounded) for the turn-off and the
                // disconnection of this connection.
                func count(_ text: String, _ also: String = "") -> Int {
                    peer.events.filter { $0.contains(text) && (also.isEmpty || $0.contains(also)) }.count
                }
                _ = await eventually {
                    count("\"subscribed\"", "\"notify\": false") >= number + 1
                        && count("\"disconnected\"") >= number + 1
                }
                #expect(count("\"subscribed\"", "\"notify\": false") == number + 1, "\(peer.events)")
                #expect(count("\"disconnected\"") == number + 1, "\(peer.events)")
            }
        }
    }
}
