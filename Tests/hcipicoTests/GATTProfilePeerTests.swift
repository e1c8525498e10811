import BLETesting
import BLEWire
import Foundation
import Testing

/// `hcipico scan` and `gatt` as built, over H4/TCP, against GATT servers this project did not write:
/// Bumble's own Device Information, Battery and Heart Rate profile classes hosted unmodified, a
/// 700-byte value, and the same server with its responses corrupted on purpose
/// (`Tests/Peers/profiles.py`). Runs when `HCIPICO_PEER_SCRIPT` names `Tests/Peers/run-peer.sh`
/// (`make peers-h4`).
@Suite(
    "hcipico against Bumble's profile classes over H4/TCP",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct GATTProfilePeerTests {
    static let longValue = "4c6f6e67-0001-4000-8000-00805f9b34fb"
    /// The first 512 bytes of the peer's 700-byte value (byte i is i mod 251), as `gatt read` prints them.
    static let first512Hex = (0..<512).map { String(format: "%02x", $0 % 251) }.joined() + "\n"

    typealias Run = (status: Int32, stdout: String, stderr: String)

    /// Starts a profiles peer (with `corrupt`, its responses rewritten) and runs `body` with it, the
    /// `gatt ADDRESS --random --transport …` words and the built binary.
    static func withProfilesPeer<Result>(
        corrupt: String? = nil,
        _ body: (BumblePeer, [String], String) async throws -> Result
    ) async throws -> Result {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-peer-\(UUID()).log").path
        let arguments = ["--mode", "profiles", "--name", "HRSim"] + (corrupt.map { ["--corrupt", $0] } ?? [])
        let peer = try await BumblePeer.start(script: script, arguments: arguments, logPath: log)
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        let address = try #require(peer.peripherals.first)
        let link = ["gatt", address.description, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)"]
        return try await body(peer, link, try builtHCIPico())
    }

    @Test func profilesAreNamedReadWrittenAndSubscribedAsTheyDeclare() async throws {
        try await Self.withProfilesPeer { peer, link, binary in
            // The advertisement: the SIG's names for its services, company and appearance.
            let scan = try #require(
                runProgram(binary, ["scan", "--all", "--json", "--timeout", "2", link[3], link[4]])
            )
            #expect(scan.status == 0, "\(scan.stderr)")
            let line = try #require(scan.stdout.split(separator: "\n").first { $0.contains("HRSim") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["serviceNames"] as? [String] == ["Heart Rate", "Battery", "Device Information"])
            #expect(object["appearanceName"] as? String == "Heart Rate Sensor: Heart Rate Belt")
            let maker = (object["manufacturerData"] as? [[String: Any]])?.first?["company"] as? String
            #expect(maker == "Nordic Semiconductor ASA")

            let services = try #require(runProgram(binary, link + ["services"]))
            #expect(services.status == 0, "\(services.stderr)")
            for expected in [
                "service 180A Device Information", "characteristic 2A29 Manufacturer Name String  [read]",
                "\"hcipico test peer\"", "service 180F Battery", "characteristic 2A19 Battery Level  [read notify]",
                "service 180D Heart Rate", "characteristic 2A37 Heart Rate Measurement  [notify]",
                "characteristic 2A38 Body Sensor Location", "characteristic 2A39 Heart Rate Control Point  [write]",
                "characteristic 2B2A Database Hash",
            ] {
                #expect(services.stdout.contains(expected), "\(expected) missing from:\n\(services.stdout)")
            }

            let battery = try #require(runProgram(binary, link + ["read", "2A19"]))
            #expect(battery.status == 0 && battery.stdout == "57\n", "\(battery)")

            // A 700-byte value reads as its first 512 bytes at every MTU, with a word on stderr.
            for mtu in ["23", "247", "517"] {
                let read = try #require(runProgram(binary, link + ["read", Self.longValue, "--mtu", mtu]))
                #expect(read.status == 0, "MTU \(mtu): \(read.stderr)")
                #expect(read.stdout == Self.first512Hex, "MTU \(mtu)")
                #expect(read.stderr.contains("more than 512 bytes"), "MTU \(mtu): \(read.stderr)")
            }

            // 2A39 declares write only: a Write Command is refused unless forced; the profile answers a
            // code it does not support with its Application Error.
            let command = try #require(runProgram(binary, link + ["write", "2A39", "01", "--without-response"]))
            #expect(command.status == 64 && command.stderr.contains("--force"), "\(command)")
            let reset = try #require(runProgram(binary, link + ["write", "2A39", "01"]))
            #expect(reset.status == 0, "\(reset)")
            let unsupported = try #require(runProgram(binary, link + ["write", "2A39", "02"]))
            #expect(
                unsupported.status == 3 && unsupported.stderr.contains("Application Error (0x80)"),
                "\(unsupported)"
            )
            #expect(peer.events.filter { $0.contains("\"energy-reset\"") }.count == 1, "\(peer.events)")

            let beats = try #require(runProgram(binary, link + ["subscribe", "2A37", "--count", "3"]))
            #expect(beats.status == 0, "\(beats.stderr)")
            #expect(beats.stdout.split(separator: "\n").count == 3, "\(beats.stdout)")
        }
    }

    /// What each corrupted response does, and the words it must produce on stderr.
    static let refusedDiscovery: [(kind: String, message: String)] = [
        ("duplicate-group", "ATT_READ_BY_GROUP_TYPE_REQ (0x10): service 0x1–0x5 repeats or overlaps another"),
        ("overlap-group", "ATT_READ_BY_GROUP_TYPE_REQ (0x10): service 0x6–0xD repeats or overlaps another"),
        ("zero-value-handle", "ATT_READ_BY_TYPE_REQ (0x08): characteristic at 0x2 names value handle 0x0"),
        ("oversize-response", "response of 902 bytes exceeds ATT_MTU 517"),
    ]

    @Test(arguments: refusedDiscovery)
    func aCorruptedDiscoveryResponseIsRefusedByName(kind: String, message: String) async throws {
        try await Self.withProfilesPeer(corrupt: kind) { peer, link, binary in
            let services = try #require(runProgram(binary, link + ["services"]))
            #expect(services.status == 3, "\(services)")
            #expect(services.stderr.contains(message), "\(services.stderr)")
            #expect(peer.events.contains { $0.contains("\"corrupted\"") }, "the peer never corrupted a response")
        }
    }

    @Test func anOversizedNotificationIsDroppedAndSaid() async throws {
        try await Self.withProfilesPeer(corrupt: "oversize-notify") { _, link, binary in
            let beats = try #require(runProgram(binary, link + ["subscribe", "2A37", "--count", "3"]))
            #expect(beats.status == 0, "\(beats.stderr)")
            #expect(beats.stdout.split(separator: "\n").count == 3, "\(beats.stdout)")
            #expect(beats.stderr.contains("ATT: dropped notification of 600 bytes > ATT_MTU"), "\(beats.stderr)")
        }
    }

    @Test func aServerThatIgnoresTheOffsetStillGivesAtMost512Bytes() async throws {
        try await Self.withProfilesPeer(corrupt: "ignore-offset") { peer, link, binary in
            let read = try #require(runProgram(binary, link + ["read", Self.longValue, "--mtu", "23"]))
            #expect(read.status == 0, "\(read.stderr)")
            #expect(read.stdout.count == 1025 && read.stdout != Self.first512Hex, "\(read.stdout)")
            #expect(read.stderr.contains("more than 512 bytes"), "\(read.stderr)")
            #expect(peer.events.contains { $0.contains("\"corrupted\"") })
        }
    }
}
