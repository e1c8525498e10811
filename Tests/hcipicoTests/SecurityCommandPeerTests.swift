import BLETesting
import BLEWire
import Foundation
import Testing

/// `--security`, `pair` and `bonds` as built, over H4/TCP against Bumble's Security Manager: a Pico
/// peripheral whose RX writes need encryption, with values that need an encrypted and an authenticated
/// link, a display that shows passkey 123456, and a bond store in a folder of the test's own.
@Suite(
    "hcipico --security, pair and bonds against the Bumble peer",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct SecurityCommandPeerTests {
    static let encrypted = "53656375-0001-4000-8000-00805f9b34fb"
    static let authenticated = "53656375-0002-4000-8000-00805f9b34fb"

    struct Outcome {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    @Test("refused by name with a hint, then auto, authenticate, a wrong passkey, the store's rules, remove")
    func wholePath() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-bonds-\(UUID())").path
        let log = folder + ".peer.log"
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "pico", "--pairing", "sc", "--io", "display", "--protect", "--protect-rx"],
            logPath: log
        )
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: log)
        }
        let address = try #require(peer.peripherals.first).description
        let binary = try builtHCIPico()
        let reach = [address, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)", "--bonds", folder]
        func run(_ words: [String], input: String = "") -> Outcome {
            let result = runProgram(binary, words, input: Array(input.utf8))
            return Outcome(
                status: result?.status ?? -1,
                stdout: String(decoding: result?.stdout ?? [], as: UTF8.self),
                stderr: String(decoding: result?.stderr ?? [], as: UTF8.self)
            )
        }

        let refused = run(["gatt"] + reach + ["read", Self.encrypted])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("Insufficient Encryption (0x0F)") && refused.stderr.contains("--security auto"))

        let auto = run(["gatt"] + reach + ["--security", "auto", "read", Self.encrypted, "--text"])
        #expect(auto.status == 0 && auto.stdout == "sealed with an encrypted link\n", "\(auto.stderr)")
        #expect(auto.stderr.contains("paired (Secure Connections, unauthenticated, 16-octet key)"), "\(auto.stderr)")
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".json") }
        )
        let path = folder + "/" + file
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        var keys = [try #require(Self.longTermKey(in: path))]

        let serial = run(["serial"] + reach + ["--security", "encrypt", "--idle", "0.5"], input: "t\n")
        #expect(serial.status == 0 && serial.stdout.contains("tespico"), "\(serial.stdout) \(serial.stderr)")
        #expect(!serial.stderr.contains("paired"), "the bond should encrypt without pairing: \(serial.stderr)")

        let listed = run(["bonds", "--bonds", folder])
        #expect(listed.status == 0 && listed.stdout.contains("\(address)  Secure Connections, unauthenticated"))
        let json = run(["bonds", "list", "--json", "--bonds", folder])
        #expect(json.stdout.contains("\"authenticated\":false") && !json.stdout.contains("ltk"))

        let noInput = run(["gatt"] + reach + ["--security", "auto", "read", Self.authenticated])
        #expect(noInput.status == 7, "\(noInput.stderr)")
        #expect(noInput.stderr.contains("NoInputNoOutput") && noInput.stderr.contains("give --passkey"))

        let typed = run(
            ["gatt"] + reach + [
                "--security", "authenticate", "--passkey", "123456", "read", Self.authenticated, "--text",
            ]
        )
        #expect(typed.status == 0 && typed.stdout == "sealed with an authenticated link\n", "\(typed.stderr)")
        #expect(run(["bonds", "--bonds", folder]).stdout.contains("Secure Connections, authenticated"))
        keys.append(try #require(Self.longTermKey(in: path)))

        // The device forgets its bonds: encrypt stops and says so, auto forgets the bond and pairs again.
        kill(peer.processIdentifier, SIGHUP)
        #expect(await peer.waitForEvent(containing: "bonds-forgotten") != nil)
        let stale = run(["gatt"] + reach + ["--security", "encrypt", "read", Self.encrypted])
        #expect(stale.status == 7, "\(stale.stderr)")
        #expect(stale.stderr.contains("PIN or Key Missing (0x06)") && stale.stderr.contains("--security auto"))
        let again = run(["gatt"] + reach + ["--security", "auto", "read", Self.encrypted, "--text"])
        #expect(again.status == 0 && again.stdout == "sealed with an encrypted link\n", "\(again.stderr)")
        #expect(again.stderr.contains("forgetting the bond and pairing again"), "\(again.stderr)")

        let wrong = run(["pair"] + reach + ["--security", "authenticate", "--passkey", "111111"])
        #expect(wrong.status == 7 && wrong.stderr.contains("Confirm Value Failed (0x04)"), "\(wrong.stderr)")

        for outcome in [refused, auto, serial, listed, json, noInput, typed, stale, again, wrong] {
            for key in keys {
                #expect(!(outcome.stdout + outcome.stderr).lowercased().contains(key), "a key was printed")
            }
        }

        chmod(path, 0o644)
        let exposed = run(["gatt"] + reach + ["--security", "encrypt", "read", Self.encrypted])
        #expect(exposed.status == 64 && exposed.stderr.contains("readable by group or others"), "\(exposed.stderr)")
        chmod(path, 0o600)

        let removed = run(["bonds", "remove", address, "--bonds", folder])
        #expect(removed.status == 0 && removed.stdout == "forgot \(address) (1 bond file)\n", "\(removed.stderr)")
        #expect(run(["bonds", "--bonds", folder]).stdout.isEmpty)
        #expect(run(["bonds", "remove", address, "--bonds", folder]).status == 64)
    }

    @Test("auto answers a device's Security Request by pairing before its first request is refused")
    func securityRequest() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-bonds-\(UUID())").path
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "echo", "--pairing", "sc", "--protect", "--security-request"],
            logPath: folder + ".peer.log"
        )
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: folder + ".peer.log")
        }
        let address = try #require(peer.peripherals.first).description
        let words = [
            "gatt", address, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)", "--bonds", folder, "--security",
            "auto", "read", Self.encrypted, "--text",
        ]
        let result = try #require(runProgram(try builtHCIPico(), words, input: []))
        let stderr = String(decoding: result.stderr, as: UTF8.self)
        #expect(
            result.status == 0 && String(decoding: result.stdout, as: UTF8.self) == "sealed with an encrypted link\n"
        )
        #expect(stderr.contains("asks for security (Security Request): pairing"), "\(stderr)")
        #expect(!stderr.contains("Insufficient Encryption"), "\(stderr)")
    }

    /// The store's long-term key of the first bond, lowercase hex (to look for it in what was printed).
    static func longTermKey(in path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path),
            let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let bonds = document["bonds"] as? [[String: Any]]
        else { return nil }
        return bonds.first?["ltk"] as? String
    }
}
