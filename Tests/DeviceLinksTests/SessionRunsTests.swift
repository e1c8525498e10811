import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import MethodSCRIPT
import PicoLink
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `SessionRuns`, the console's runs on one open Pico: every run into the session's files with its own
/// provenance, the last one kept for `save(to:)`, and a stop that waits for the run to be recorded.
@Suite struct SessionRunsTests {
    private static func session(files: SessionRuns.Files, fast: Bool = true) async throws -> SessionRuns {
        let opener = LinkOpener(logger: RecordedLog().logger())
        let opened = try await opener.openPico(
            .simulator(.pico),
            options: LinkOpener.Options(simulator: SimulatorSettings(fast: fast))
        )
        let (version, leftover) = try await opened.session.takeOver()
        return SessionRuns(
            link: opened,
            target: .simulator(.pico),
            version: version,
            serial: nil,
            foundAtConnect: leftover,
            files: files,
            toolVersion: "hcipico test"
        )
    }

    private static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "session-runs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    @Test func everyRunGoesToTheFilesAndTheLastIsSaved() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runs = try await Self.session(
            files: SessionRuns.Files(csv: directory + "/runs.csv", jsonl: directory + "/runs.jsonl")
        )
        defer { Task { await runs.link.close() } }
        let script = try PicoScript(try Method(technique: .cv).script())
        let first = try await runs.run(script)
        let second = try await runs.run(script)
        #expect(first.end.complete && second.end.complete && second.end.packages > 0)
        #expect(first.analysis != nil)
        runs.syncFiles()
        let jsonl = try String(contentsOfFile: directory + "/runs.jsonl", encoding: .utf8)
        #expect(jsonl.contains("console-1") && jsonl.contains("console-2"))
        let saved = directory + "/last.jsonl"
        #expect(try runs.save(to: saved) == second.end.packages)
        #expect(throws: SessionRuns.SaveProblem.self) { try runs.save(to: saved) }
        #expect(SessionRuns.runPath("a/runs.csv", 3) == "a/runs-run3.csv")
    }

    @Test func nothingIsSavedBeforeARun() async throws {
        let runs = try await Self.session(files: SessionRuns.Files())
        defer { Task { await runs.link.close() } }
        do {
            _ = try runs.save(to: NSTemporaryDirectory() + "never-\(UUID().uuidString).csv")
            Issue.record("saved a run that never was")
        } catch {
            #expect(error.description == ":save: no run yet")
        }
    }

    /// A stop during a run stops it with `Z` and returns once the run is recorded to its end; the
    /// session keeps the stop.
    @Test func aStopDuringARunWaitsForItsRecording() async throws {
        let runs = try await Self.session(files: SessionRuns.Files(), fast: false)
        defer { Task { await runs.link.close() } }
        let script = try PicoScript(try Method(technique: .cv).script())
        let started = Latch<Void>()
        async let result = runs.run(script) { event in
            if case .package = event { started.settle(()) }
        }
        await started.wait()
        await runs.stop(.signal(SIGTERM))
        let end = try await result.end
        #expect(!end.complete && end.reason?.contains("interrupted (SIGTERM)") == true, "\(end)")
        #expect(runs.stopReason == .signal(SIGTERM))
    }
}
