import Foundation
import Testing

/// Every way a device command can be stopped — SIGINT, SIGTERM, SIGHUP, a closed standard output, a
/// second signal, a device that never ends — ends it the same clean way, through the built binary.
@Suite struct RunEndingCommandLineTests {
    static let vspTX = "569a2000-b87f-490c-92cb-11ba5ea5167c"
    static let vspRX = "569a2001-b87f-490c-92cb-11ba5ea5167c"
    /// What the simulator's trace shows when `\nZ\n` reaches its RX characteristic (handle 0x0009).
    static let abortWrite = "sim: write 0x0009 0a5a0a"

    static let signals: [(signal: Int32, status: Int32, name: String)] = [
        (SIGINT, 130, "SIGINT"), (SIGTERM, 143, "SIGTERM"), (SIGHUP, 129, "SIGHUP"),
    ]

    @Test(arguments: 0..<3)
    func everySignalAbortsTheRunAndMarksEveryFile(_ which: Int) async throws {
        let (signal, expected, name) = Self.signals[which]
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, seconds, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                [
                    "connect", "sim", "--technique", "cv", "--csv", "cv.csv", "--jsonl", "cv.jsonl", "--svg", "cv.svg",
                    "--quiet", "--sim-trace",
                ],
                in: directory
            )
            _ = program.wait { program.text("cv.csv").split(separator: "\n").filter { !$0.hasPrefix("#") }.count >= 6 }
            program.send(signal)
            let (status, seconds) = program.finish()
            return (status, seconds, program)
        }
        #expect(status == expected, "\(program.standardError)")
        #expect(seconds < 2, "took \(seconds) s to exit")
        #expect(program.standardError.contains(Self.abortWrite), "\(program.standardError)")
        let csv = program.text("cv.csv").split(separator: "\n")
        let end = csv.dropLast().last ?? ""
        #expect(end.hasPrefix("# end: incomplete (interrupted (\(name)); script aborted by Z), "), "\(end)")
        // The cell is switched off before the run is reported ended, and the records say so.
        #expect(csv.last?.hasPrefix("# cell: cell off confirmed at ") == true, "\(csv.suffix(2))")
        #expect(Self.lastCellState(program.standardError) == "sim: cell off", "\(program.standardError)")
        let jsonl = program.text("cv.jsonl").split(separator: "\n")
        #expect(
            jsonl.last?.contains("\"complete\":false,\"reason\":\"interrupted (\(name)); script aborted by Z\"") == true
        )
        #expect(jsonl.last?.contains("\"cell\":\"cell off confirmed at ") == true)
        let svg = program.text("cv.svg")
        #expect(svg.contains("incomplete: interrupted (\(name))") && svg.hasSuffix("</svg>\n"))
    }

    @Test func aClosedStandardOutputEndsTheRunCleanly() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                ["connect", "sim", "--technique", "cv", "--csv", "-", "--jsonl", "cv.jsonl", "--sim-trace"],
                in: directory,
                pipeOutput: true
            )
            let pipe = try #require(program.program.outputPipe)
            // Read a few lines, then go away as `head` does.
            var seen = Data()
            while seen.split(separator: UInt8(ascii: "\n")).count < 6 {
                let chunk = pipe.availableData
                if chunk.isEmpty { break }
                seen += chunk
            }
            try pipe.close()
            return (program.finish().status, program)
        }
        #expect(status == 141, "\(program.standardError)")
        #expect(program.standardError.contains(Self.abortWrite))
        let jsonl = program.text("cv.jsonl").split(separator: "\n")
        #expect(jsonl.last?.contains("\"complete\":false,\"reason\":\"output closed") == true, "\(jsonl.last ?? "")")
    }

    @Test(arguments: 0..<3)
    func subscribeTurnsTheSubscriptionOffOnEverySignal(_ which: Int) async throws {
        let (signal, expected, _) = Self.signals[which]
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, seconds, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                [
                    "gatt", "sim:pico", "subscribe", Self.vspTX, "--write-to", Self.vspRX, "--write", "740a",
                    "--sim-trace",
                ],
                in: directory
            )
            _ = program.wait { program.standardOutput.contains("0x0006") }
            program.send(signal)
            let (status, seconds) = program.finish()
            return (status, seconds, program)
        }
        #expect(status == expected, "\(program.standardError)")
        #expect(seconds < 2)
        // The CCCD of TX (0x0007) on, then off again before the link closed.
        #expect(program.standardError.contains("sim: write 0x0007 0100"))
        #expect(program.standardError.contains("sim: write 0x0007 0000"), "\(program.standardError)")
    }

    @Test(arguments: [["gatt", "sim:calculator", "services"], ["connect", "sim", "--quiet"]])
    func ctrlCWithARequestOutstandingEndsWithinASecond(_ command: [String]) async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, seconds) = try await CommandLineTests.offPool {
            let program = try CommandProcess(command + ["--sim-fault", "silent"], in: directory)
            // Its handler is in place just before it connects; then the Exchange MTU request goes out
            // and is never answered.
            _ = program.program.wait { program.program.catches(SIGINT) }
            Thread.sleep(forTimeInterval: 0.3)
            program.send(SIGINT)
            return program.finish()
        }
        #expect(status == 130)
        #expect(seconds < 1, "took \(seconds) s")
    }

    @Test func aDeviceThatNeverEndsItsScriptAfterZIsLeftBehindInBoundedTime() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, seconds, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                ["connect", "sim", "--technique", "ca", "--csv", "ca.csv", "--quiet", "--sim-fault", "ignores-abort"],
                in: directory
            )
            _ = program.wait { program.text("ca.csv").split(separator: "\n").count >= 4 }
            program.send(SIGTERM)
            let (status, seconds) = program.finish()
            return (status, seconds, program)
        }
        #expect(status == 143, "\(program.standardError)")
        #expect(seconds < 6, "took \(seconds) s")
        let lines = program.text("ca.csv").split(separator: "\n")
        let end = lines.dropLast().last ?? ""
        #expect(
            end.hasPrefix("# end: incomplete (interrupted (SIGTERM); the device did not end its script"),
            "\(end)"
        )
        // The device never stopped: the cell may still be on, and the record says so.
        #expect(lines.last == "# cell: cell state unknown: the link was closed after the device did not stop")
    }

    @Test func aSecondSignalEndsAtOnceStillWithAnEndMarker() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, seconds, program) = try await CommandLineTests.offPool {
            let program = try CommandProcess(
                [
                    "connect", "sim", "--technique", "ca", "--jsonl", "ca.jsonl", "--quiet", "--sim-fault",
                    "ignores-abort",
                ],
                in: directory
            )
            _ = program.wait { program.text("ca.jsonl").split(separator: "\n").count >= 4 }
            program.send(SIGTERM)
            Thread.sleep(forTimeInterval: 0.3)
            program.send(SIGINT)
            let (status, seconds) = program.finish()
            return (status, seconds, program)
        }
        #expect(status == 143, "\(program.standardError)")
        #expect(seconds < 1.5, "took \(seconds) s")
        let last = program.text("ca.jsonl").split(separator: "\n").last ?? ""
        #expect(
            last.contains("\"complete\":false,\"reason\":\"interrupted (SIGTERM); interrupted (SIGINT) during cleanup")
        )
    }

    @Test func aSilentPeerOrAMalformedMTUResponseIsNotALostLink() async throws {
        let directory = try CommandLineTests.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let malformed = try await CommandLineTests.offPool {
            try CommandLineTests.run(
                ["gatt", "sim:calculator", "services", "--sim-fault", "malformed-mtu"],
                in: directory
            )
        }
        #expect(malformed.status == 3, "\(malformed.error)")
        #expect(malformed.error.contains("invalid response"))
    }

    /// The simulator's last report of its cell in a `--sim-trace` log (`sim: cell off`, `sim: cell on at 0.5 V`).
    static func lastCellState(_ log: String) -> String? { cellStates(log).last }

    /// The simulator's first report of its cell in a log.
    static func firstCellState(_ log: String) -> String? { cellStates(log).first }

    private static func cellStates(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "sim: cell ") else { return nil }
            return String(line[range.lowerBound...])
        }
    }
}
