import BLETesting
import BLEWire
import Foundation
import Testing

/// `hcipico rig` as built, against the Bumble peer: two Bumble-hosted Pico peripherals on one emulated
/// controller, both reached through one HCI host over H4/TCP, measuring at once into the journal.
/// Runs when `HCIPICO_PEER_SCRIPT` names `Tests/Peers/run-peer.sh` (`make peers-h4`).
@Suite(
    "hcipico rig over H4/TCP against the Bumble peer",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct RigCommandPeerTests {
    /// A scratch folder holding the example LSV script the configs name.
    static func workspace() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rig-peer-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples")
        try FileManager.default.copyItem(
            at: examples.appendingPathComponent("LSV_10k.mscr"),
            to: directory.appendingPathComponent("LSV_10k.mscr")
        )
        return directory
    }

    /// One radio Pico of a rig config, running `LSV_10k.mscr`, with any extra `key = value` lines.
    static func picoDevice(
        _ name: String,
        address: String,
        transport: String,
        schedule: String,
        extra: String = ""
    )
        -> String
    {
        """
        [[device]]
        name = "\(name)"
        address = "\(address)"
        address_type = "random"
        transport = "\(transport)"
        script = "LSV_10k.mscr"
        schedule = "\(schedule)"
        \(extra)

        """
    }

    /// Writes `config` as `rig.toml` in `directory`; returns its path.
    static func writeConfig(_ config: String, in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("rig.toml").path
        try config.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Two Picos sharing one controller, a third on a second controller, and a simulated one, in one rig.
    @Test func picosOnTwoControllersAndASimulatorRunIntoOneJournal() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "pico", "--peripherals", "2"],
            logPath: directory.appendingPathComponent("peer.log").path
        )
        defer { peer.stop() }
        let other = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "pico"],
            logPath: directory.appendingPathComponent("other.log").path
        )
        defer { other.stop() }
        try #require(peer.peripherals.count == 2 && other.peripherals.count == 1)
        let radios = peer.peripherals.map { ($0, peer.port) } + other.peripherals.map { ($0, other.port) }
        var config = "[rig]\nname = \"peer-rig\"\n"
        for (index, (address, port)) in radios.enumerated() {
            // The third tunes its link beside its run (Bumble's controller answers the tuning commands).
            config += Self.picoDevice(
                "pico-\(index + 1)",
                address: "\(address)",
                transport: "tcp:127.0.0.1:\(port)",
                schedule: "once",
                extra: index == 2 ? "link = \"low-latency\"" : ""
            )
        }
        config += "[[device]]\nname = \"sim-1\"\ntransport = \"sim\"\nrealtime = false\n"
        config += "script = \"LSV_10k.mscr\"\nschedule = \"once\"\n"
        let configPath = try Self.writeConfig(config, in: directory)
        let binary = try builtHCIPico()
        // Every schedule is `once`: the rig ends by itself once the four runs are recorded.
        let rig = try #require(runProgram(binary, ["rig", configPath, "--for", "2m"]))
        #expect(rig.status == 0, "\(rig.stderr)")
        #expect(rig.stdout.contains("every schedule is done") || rig.stderr.contains("every schedule is done"))
        let journal = directory.appendingPathComponent("peer-rig.sqlite").path
        let runs = try #require(runProgram(binary, ["runs", journal, "--json"]))
        let lines = runs.stdout.split(separator: "\n")
        #expect(lines.count == 4, "\(runs.stdout)")
        for line in lines {
            #expect(line.contains("\"state\":\"complete\"") && line.contains("\"packages\":101"), "\(line)")
            // HCI Read RSSI through our host: the peers' controllers answer -42 dBm; a simulator has none.
            #expect(line.contains(line.contains("\"device\":\"sim-1\"") ? "\"rssi\":null" : "\"rssi\":-42"), "\(line)")
        }
        #expect(
            Set(lines.compactMap { $0.split(separator: "\"device\":\"").last?.split(separator: "\"").first })
                == ["pico-1", "pico-2", "pico-3", "sim-1"]
        )
    }

    /// Two Picos whose RX refuses writes on an unencrypted link: one with `security = "auto"` (pairs on
    /// the refusal), one with `security = "encrypt"` (pairs before its run); both runs complete and both
    /// bonds are kept.
    @Test func picosThatNeedEncryptionPairAndRun() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "pico", "--peripherals", "2", "--pairing", "sc", "--protect-rx"],
            logPath: directory.appendingPathComponent("peer.log").path
        )
        defer { peer.stop() }
        try #require(peer.peripherals.count == 2)
        var config = "[rig]\nname = \"secure-rig\"\n"
        for (index, (address, mode)) in zip(peer.peripherals, ["auto", "encrypt"]).enumerated() {
            config += Self.picoDevice(
                "pico-\(index + 1)",
                address: "\(address)",
                transport: "tcp:127.0.0.1:\(peer.port)",
                schedule: "once",
                extra: "security = \"\(mode)\""
            )
        }
        let configPath = try Self.writeConfig(config, in: directory)
        let bonds = directory.appendingPathComponent("bonds").path
        let binary = try builtHCIPico()
        // The rig's bond store comes from its environment: this child's only, not the test process's,
        // which runs other tests' programs at the same time.
        let rig = try TestProgram.run(
            binary,
            ["rig", configPath, "--for", "2m"],
            environment: ["HCIPICO_BONDS": bonds]
        )
        #expect(rig.status == 0, "\(rig.errorText)")
        let runs = try #require(
            runProgram(binary, ["runs", directory.appendingPathComponent("secure-rig.sqlite").path, "--json"])
        )
        let lines = runs.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(runs.stdout)")
        for line in lines {
            #expect(line.contains("\"state\":\"complete\"") && line.contains("\"packages\":101"), "\(line)")
        }
        let listed = try #require(runProgram(binary, ["bonds", "--bonds", bonds]))
        #expect(listed.stdout.split(separator: "\n").count == 2, "\(listed.stdout) \(listed.stderr)")
        // Once this counted three pairings in one run out of many; the peer's events and the rig's log say
        // which device paired again, and why, if it happens again.
        let pairings = peer.events.filter { $0.contains("\"paired\"") }
        #expect(pairings.count == 2, "peer events: \(peer.events)\nrig: \(rig.errorText)")
    }

    @Test func aControllerThatGoesAwayMidRunIsReconnectedAndTheRunIsClosedWithItsReason() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("peer.log").path
        // About 2 s per run: the peer paces the samples at a fifth of the script's interval.
        let arguments = ["--mode", "pico", "--pace", "0.2"]
        var peer = try await BumblePeer.start(script: script, arguments: arguments, logPath: log)
        defer { peer.stop() }
        let address = try #require(peer.peripherals.first)
        let configPath = try Self.writeConfig(
            "[rig]\nname = \"away\"\n"
                + Self.picoDevice(
                    "pico-1",
                    address: "\(address)",
                    transport: "tcp:127.0.0.1:\(peer.port)",
                    schedule: "continuous",
                    // However slowly the peer comes back (a loaded machine), the rig keeps retrying at its
                    // reconnect pace instead of resting for the default 5 minutes after 5 failures.
                    extra: "max_failures = 1000"
                ),
            in: directory
        )
        let binary = try builtHCIPico()
        let rig = try TestProgram(binary, ["rig", configPath])
        #expect(await eventually(.seconds(60)) { rig.errorText.contains("pico-1: run 1 complete") }, "\(rig.errorText)")
        // Run 2 starts at once (continuous); the controller and the peripheral go away mid-run, then
        // come back on the same port.
        #expect(await eventually(.seconds(30)) { rig.errorText.contains("pico-1: run 2 started") }, "\(rig.errorText)")
        let port = peer.port
        peer.stop()
        #expect(
            await eventually(.seconds(30)) { rig.errorText.contains("pico-1: run 2 incomplete") },
            "\(rig.errorText)"
        )
        peer = try await BumblePeer.start(
            script: script,
            arguments: arguments + ["--listen", "127.0.0.1:\(port)"],
            logPath: log
        )
        #expect(
            await eventually(.seconds(90)) {
                rig.errorText.contains("pico-1: connected") && rig.errorText.contains("run 3 complete")
            },
            "\(rig.errorText)"
        )
        rig.send(SIGTERM)
        #expect(rig.finish().status == 143, "\(rig.errorText)")
        let runs = try #require(
            runProgram(binary, ["runs", directory.appendingPathComponent("away.sqlite").path, "--json"])
        )
        let lines = runs.stdout.split(separator: "\n")
        try #require(lines.count >= 3, "\(runs.stdout)")
        #expect(lines[0].contains("\"state\":\"complete\"") && lines[0].contains("\"packages\":101"))
        #expect(
            // Lost while its script went out or while its data came: either way the reason says so.
            lines[1].contains("\"state\":\"incomplete\"") && lines[1].contains("connection lost"),
            "\(lines[1])"
        )
        #expect(lines[2].contains("\"state\":\"complete\"") && lines[2].contains("\"packages\":101"), "\(lines[2])")
    }

    @Test func aControllerThatStopsAnsweringIsResetAndInitialisedAgain() async throws {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("peer.log").path
        let peer = try await BumblePeer.start(
            script: script,
            arguments: ["--mode", "pico", "--pace", "0.2"],
            logPath: log
        )
        defer { peer.stop() }
        let address = try #require(peer.peripherals.first)
        let transport = "tcp:127.0.0.1:\(peer.port)"
        let configPath = try Self.writeConfig(
            "[rig]\nname = \"hung\"\n"
                + Self.picoDevice(
                    "pico-1",
                    address: "\(address)",
                    transport: transport,
                    schedule: "continuous",
                    extra: "run_timeout = \"8s\""
                ),
            in: directory
        )
        let binary = try builtHCIPico()
        let rig = try TestProgram(binary, ["rig", configPath])
        #expect(await eventually(.seconds(60)) { rig.errorText.contains("pico-1: run 1 complete") }, "\(rig.errorText)")
        // Mid-run 2 the controller hangs: nothing crosses its HCI either way.
        #expect(await eventually(.seconds(30)) { rig.errorText.contains("pico-1: run 2 started") }, "\(rig.errorText)")
        kill(peer.processIdentifier, SIGUSR1)
        #expect(await peer.waitForEvent(containing: "\"muted\"") != nil)
        #expect(
            await eventually(.seconds(60)) { rig.errorText.contains("controller on \(transport) stopped answering") },
            "\(rig.errorText)"
        )
        kill(peer.processIdentifier, SIGUSR2)
        #expect(await peer.waitForEvent(containing: "\"unmuted\"") != nil)
        let resetAt = rig.errorText.count
        #expect(
            await eventually(.seconds(90)) {
                rig.errorText.dropFirst(resetAt).contains("pico-1: connected")
                    && rig.errorText.dropFirst(resetAt).contains("complete, 101 packages committed")
            },
            "\(rig.errorText)"
        )
        rig.send(SIGTERM)
        #expect(rig.finish().status == 143, "\(rig.errorText)")
        #expect(rig.outputText.contains("adapter: controller on \(transport): 1 reset"), "\(rig.outputText)")
        let runs = try #require(
            runProgram(binary, ["runs", directory.appendingPathComponent("hung.sqlite").path, "--json"])
        )
        let lines = runs.stdout.split(separator: "\n")
        try #require(lines.count >= 3, "\(runs.stdout)")
        #expect(lines[0].contains("\"state\":\"complete\"") && lines[0].contains("\"packages\":101"))
        #expect(
            lines[1].contains("\"state\":\"incomplete\"") && !lines[1].contains("\"reason\":null"),
            "\(lines[1])"
        )
        #expect(
            lines.dropFirst(2).contains { $0.contains("\"state\":\"complete\"") && $0.contains("\"packages\":101") },
            "\(runs.stdout)"
        )
    }
}
