import BLETesting
import Coordination
import Foundation
import PicoLink
import PicoSimulator
import Synchronization
import Testing

@Suite struct RunEndingTests {
    static func realTime() -> SimulatedPicoConfiguration {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = SystemClock()
        return configuration
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-\(UUID().uuidString)-\(name)").path
    }

    @Test func abortMidRunEndsTheStreamAndTheDeviceAnswersAgain() async throws {
        let link = try await SimulatedPicoSession.make(configuration: Self.realTime())
        defer { link.close() }
        let run = try await link.session.run(text: try ExampleScripts.text("CV.mscr"))
        let session = link.session
        let outcome = await RunOutcome.collect(run) { count in
            if count == 3 { _ = try? await session.abort() }
        }
        #expect(outcome.failure == nil)
        #expect(outcome.ended?.aborted == true)
        #expect(outcome.packages.count >= 3 && outcome.packages.count < 201)
        #expect(try await session.abort() == false)  // idle now: Z!0006
        #expect(try await session.version().device == "EmStat Pico")
    }

    @Test func disconnectMidRunKeepsTheCSVUpToTheLastPackage() async throws {
        let link = try await SimulatedPicoSession.make(mtu: 23)
        defer { link.close() }
        let notifications = Mutex(0)
        // Cut the link after 150 TX notifications of 20 bytes: in the middle of the CV's packages.
        link.deviceEnd.injectFaults { _, pdu in
            guard pdu.first == 0x1B else { return nil }
            let count = notifications.withLock { count in
                count += 1
                return count
            }
            return count > 150 ? .disconnect : nil
        }
        let path = Self.temporaryPath("cut.csv")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = RunRecorder(sinks: [try CSVSink(path: path)])
        var seen: [PicoPackage] = []
        let end = try await recorder.record(try await link.session.run(text: try ExampleScripts.text("CV.mscr"))) {
            if case .package(let package) = $0 { seen.append(package) }
        }
        #expect(!end.complete)
        #expect(end.reason?.contains("connection lost") == true)
        #expect(seen.count > 10 && seen.count < 201)
        #expect(end.packages == seen.count)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let rows = lines.dropFirst().filter { !$0.hasPrefix("#") }
        #expect(rows.count == 2 * seen.count)
        #expect(rows.last?.split(separator: ",", omittingEmptySubsequences: false)[2] == "\(seen.count - 1)"[...])
        #expect(lines.last?.hasPrefix("# end: incomplete (connection lost") == true)
        await #expect(throws: PicoSessionError.self) { try await link.session.version() }
    }

    @Test func deviceErrorIsLocatedAndEndsTheRunIncomplete() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let recorder = RunRecorder(sinks: [])
        var events: [PicoEvent] = []
        let end = try await recorder.record(try await link.session.run(text: "var c\nstore_var c 5 ja\nset_e c\n")) {
            events.append($0)
        }
        let error = try #require(recorder.deviceErrors.first)
        #expect(error.line == 3)
        #expect(error.lineText == "set_e c")
        #expect(error.message == error.code.message && !error.message.isEmpty)
        #expect(!end.complete && end.reason?.contains("!\(error.code.hex)") == true)
        #expect(events.contains { if case .ended = $0 { true } else { false } })
    }

    /// A file that starts with its own `e` line: the device counts from the line after it, the error
    /// names the line of the file.
    @Test func deviceErrorNamesTheLineOfTheFileWithItsELine() async throws {
        let link = try await SimulatedPicoSession.make()
        defer { link.close() }
        let recorder = RunRecorder(sinks: [])
        let script = "e\nvar c\nvar p\nset_pgstat_mode 2\nstore_var c 5 ja\nset_e c\n\n"
        _ = try await recorder.record(try await link.session.run(text: script)) { _ in }
        let error = try #require(recorder.deviceErrors.first)
        #expect(error.line == 6 && error.lineText == "set_e c", "\(error)")
        #expect(error.description.contains("at line 6, column 1: set_e c"))
    }
}
