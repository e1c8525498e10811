import BLETesting
import Foundation
import Testing

/// `hcipico serial` and `hcipico console` with an address over H4/TCP, against the Bumble peer: our HCI
/// host, an emulated controller and link, and a Bumble-hosted Laird VSP peripheral (echo or Pico).
/// Runs when `HCIPICO_PEER_SCRIPT` names `Tests/Peers/run-peer.sh` (`make peers-h4`), skipped otherwise.
@Suite(
    "hcipico serial and console over H4/TCP against the Bumble peer",
    .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"] != nil, "needs HCIPICO_PEER_SCRIPT")
)
struct SerialCommandPeerTests {
    /// Starts a peer with `peerArguments` and runs `hcipico COMMAND ADDRESS --random --transport tcp:…`
    /// with `input` on standard input.
    static func run(
        _ command: String,
        peer peerArguments: [String],
        _ arguments: [String] = [],
        input: [UInt8]
    ) async throws -> HCIPicoOutcome {
        let script = try #require(ProcessInfo.processInfo.environment["HCIPICO_PEER_SCRIPT"])
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-peer-\(UUID()).log").path
        let peer = try await BumblePeer.start(script: script, arguments: peerArguments, logPath: log)
        defer {
            peer.stop()
            try? FileManager.default.removeItem(atPath: log)
        }
        let address = try #require(peer.peripherals.first)
        let all = [command, address.description, "--random", "--transport", "tcp:127.0.0.1:\(peer.port)"] + arguments
        return try await runHCIPico(all, input: input)
    }

    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test func serialRoundTripsThroughTheVSPEchoByteExact() async throws {
        let input = Self.random(4_096)
        let outcome = try await Self.run("serial", peer: ["--mode", "echo"], ["--idle", "1"], input: input)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.output.count == input.count)
        #expect(outcome.output == input)
    }

    @Test func serialExits4WhenTheLinkDropsAndKeepsWhatArrived() async throws {
        let input = Self.random(4_096)
        let outcome = try await Self.run(
            "serial",
            peer: ["--mode", "echo", "--disconnect-after", "3"],
            ["--idle", "5"],
            input: input
        )
        #expect(outcome.status == 4, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("connection lost"), "\(outcome.stderr)")
        #expect(!outcome.output.isEmpty)
        #expect(Array(input.prefix(outcome.output.count)) == outcome.output, "what arrived is the start of the input")
    }

    @Test func consoleRunsAScriptOnTheBumblePico() async throws {
        let script = """
            e
            var p
            var c
            set_pgstat_mode 2
            set_range ba 50u
            set_e -500m
            cell_on
            meas_loop_lsv p c -500m 500m 10m 100m
              pck_start
              pck_add p
              pck_add c
              pck_end
            endloop
            on_finished:
              cell_off


            """
        let outcome = try await Self.run("console", peer: ["--mode", "pico"], input: Array(script.utf8))
        let text = String(decoding: outcome.output, as: UTF8.self)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(text.hasPrefix("EmStat Pico"), "\(text.prefix(200))")
        #expect(text.contains("done: 101 packages"), "\(text.suffix(300))")
    }
}

/// What a run of the built `hcipico` produced: exit status, standard output (bytes) and standard error.
struct HCIPicoOutcome {
    let status: Int32
    let output: [UInt8]
    let stderr: String
}

/// Runs the built `hcipico` with `arguments` and `input` on standard input, off the cooperative pool.
func runHCIPico(_ arguments: [String], input: [UInt8]) async throws -> HCIPicoOutcome {
    let binary = try builtHCIPico()
    let run = await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: runProgram(binary, arguments, input: input)) }
    }
    let finished = try #require(run, "cannot start \(binary)")
    return HCIPicoOutcome(
        status: finished.status,
        output: finished.stdout,
        stderr: String(decoding: finished.stderr, as: UTF8.self)
    )
}
