import BLETesting
import Foundation
import Testing

/// `hcipico serial` through the built binary against the in-process simulators.
@Suite struct SerialCommandLineTests {
    struct Outcome {
        var status: Int32
        var output: [UInt8]
        var error: String
        var seconds: Double
    }

    /// Runs `hcipico serial ARGUMENTS < input > output` and returns what came out.
    static func serial(_ arguments: [String], input: [UInt8]) async throws -> Outcome {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let start = ContinuousClock.now
        let program = try TestProgram(try TestProgram.hcipico(), ["serial"] + arguments, in: directory, input: input)
        // A program that does not end on its own is killed (status -9) rather than left to hang the suite.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(120))
            program.send(SIGKILL)
        }
        let outcome = await program.finishAsync()
        watchdog.cancel()
        let elapsed = ContinuousClock.now - start
        return Outcome(
            status: outcome.status,
            output: outcome.output,
            error: outcome.errorText,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        )
    }

    @Test func roundTrips100kBThroughTheHM10ByteExact() async throws {
        var generator = SystemRandomNumberGenerator()
        let input = (0..<102_400).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let outcome = try await Self.serial(["sim:hm10", "--idle", "0.3"], input: input)
        #expect(outcome.status == 0, "ends on its own after 0.3 s of quiet: \(outcome.error)")
        #expect(outcome.output.count == input.count)
        #expect(outcome.output == input)
        print("serial sim:hm10: 100 kB round trip in \(outcome.seconds) s including 0.3 s idle")
    }

    @Test func talksToTheSimulatedPicoOverVSP() async throws {
        let outcome = try await Self.serial(["sim:pico", "--idle", "0.3"], input: Array("t\n".utf8))
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(String(decoding: outcome.output, as: UTF8.self).hasPrefix("tespico"))
    }

    @Test func customUUIDsWork() async throws {
        let outcome = try await Self.serial(
            ["sim:hm10", "--service", "FFE0", "--rx", "FFE1", "--tx", "ffe1", "--idle", "0.2"],
            input: Array("custom\n".utf8)
        )
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.output == Array("custom\n".utf8))
    }

    @Test func aServiceTheDeviceLacksIsRefused() async throws {
        let outcome = try await Self.serial(
            ["sim:hm10", "--service", "6E400001-B5A3-F393-E0A9-E50E24DCCA9E", "--rx", "FFE1", "--tx", "FFE1"],
            input: []
        )
        #expect(outcome.status == 3)
        #expect(outcome.error.contains("no serial service"), "\(outcome.error)")
    }

    @Test func incompleteOrMalformedUUIDOptionsAreRefusedBeforeConnecting() async throws {
        let partial = try await Self.serial(["sim:hm10", "--service", "FFE0"], input: [])
        #expect(partial.status == 64)
        #expect(partial.error.contains("--service, --rx and --tx go together"), "\(partial.error)")
        let malformed = try await Self.serial(
            ["sim:hm10", "--service", "FFE0", "--rx", "xyz", "--tx", "FFE1"],
            input: []
        )
        #expect(malformed.status == 64)
        #expect(malformed.error.contains("--rx 'xyz' is not a UUID"), "\(malformed.error)")
        let idle = try await Self.serial(["sim:hm10", "--idle", "-1"], input: [])
        #expect(idle.status == 64)
    }

    @Test func ptyBridgesAPseudoTerminalUntilCtrlC() async throws {
        let program = try TestProgram(try TestProgram.hcipico(), ["serial", "sim:hm10", "--pty"])
        _ = await program.waitAsync { program.errorText.contains("\n") }
        let result: (status: Int32, echoed: [UInt8], path: String) = try await CommandLineTests.offPool {
            let text = program.errorText
            let path = text.split(separator: " ").last.map { String($0.filter { !$0.isNewline }) } ?? ""
            guard path.hasPrefix("/dev/pts/"), let port = FileHandle(forUpdatingAtPath: path) else {
                program.send(SIGINT)
                return (program.finish().status, [], text)
            }
            port.write(Data("over the pty".utf8))
            var echoed: [UInt8] = []
            while echoed.count < 12 {
                let chunk = port.availableData
                if chunk.isEmpty { break }
                echoed += chunk
            }
            try port.close()
            program.send(SIGINT)
            return (program.finish().status, echoed, path)
        }
        #expect(result.path.hasPrefix("/dev/pts/"), "\(result.path)")
        #expect(result.echoed == Array("over the pty".utf8))
        #expect(result.status == 130)
    }
}
