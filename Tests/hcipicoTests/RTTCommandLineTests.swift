import BLETesting
import Foundation
import Testing

/// `hcipico rtt` through the built binary against the in-process simulators: sim:hm10 echoes (its UART
/// is looped back, and it forwards the echo in pieces of at most 20 bytes); sim:pico does not.
@Suite struct RTTCommandLineTests {
    static func rtt(_ arguments: [String]) async throws -> TestProgram.Outcome {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let program = try TestProgram(try TestProgram.hcipico(), ["rtt"] + arguments, in: directory, input: [])
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            program.send(SIGKILL)
        }
        defer { watchdog.cancel() }
        return await program.finishAsync()
    }

    @Test func roundTripsOnTheSimulatedHM10() async throws {
        let outcome = try await Self.rtt(["sim:hm10", "--count", "20", "--warmup", "2", "--size", "20", "--json"])
        #expect(outcome.status == 0, "\(outcome.errorText)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(outcome.output)) as? [String: Any],
            "\(String(decoding: outcome.output, as: UTF8.self))"
        )
        #expect(json["profile"] as? String == "HM-10")
        #expect(json["mtu"] as? Int == 23, "the module keeps ATT_MTU at 23")
        let timed = try #require(json["write_cmd"] as? [String: Any])
        #expect(timed["n"] as? Int == 20)
        #expect((timed["notifications"] as? Int ?? 0) >= 20)
        #expect((timed["min_ms"] as? Double ?? 0) > 0)
    }

    @Test(arguments: ["sim", "sim:calculator"]) func aSimulatorThatDoesNotEchoIsRefusedBeforeConnecting(
        device: String
    ) async throws {
        let outcome = try await Self.rtt([device, "--count", "5"])
        #expect(outcome.status == 64)
        #expect(outcome.errorText.contains("does not echo, sim:hm10 does"), "\(outcome.errorText)")
        #expect(outcome.output.isEmpty)
    }
}
