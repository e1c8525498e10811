import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import MethodSCRIPT
import PicoAnalysis
import PicoLink
import RunResults
import Synchronization
import Testing

/// `ScriptRun`, the flow `hcipico connect` runs: open, take over, record into the outputs under the
/// run's limits, analyse, leave safe, close; its outcome for the program's status and its words on the
/// run's logger.
@Suite struct ScriptRunTests {
    /// A display that keeps what it was shown.
    final class KeptDisplay: RunDisplay, @unchecked Sendable {
        private(set) var banners: [String] = []
        private(set) var packages = 0
        private(set) var finished = 0
        private(set) var reports: [RunAnalysis] = []
        func banner(_ version: PicoVersion) { banners.append(version.device) }
        func show(_ event: PicoEvent) { if case .package = event { packages += 1 } }
        func finish() { finished += 1 }
        func report(_ analysis: RunAnalysis) { reports.append(analysis) }
    }

    private static func folder() throws -> String {
        let path = NSTemporaryDirectory() + "script-run-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        return path
    }

    private static func run(
        _ text: String,
        outputs: RunOutputs,
        limits: RunLimits = RunLimits(),
        fast: Bool = true,
        log: RecordedLog
    ) throws -> ScriptRun {
        ScriptRun(
            link: LinkRequest(
                target: .simulator(.pico),
                options: LinkOpener.Options(simulator: SimulatorSettings(fast: fast)),
                logger: log.logger()
            ),
            tuning: LinkTuningPlan(request: nil, stats: false),
            script: try PicoScript(text),
            title: "test",
            outputs: outputs,
            analysis: AnalysisSettings(),
            timing: false,
            limits: limits,
            toolVersion: "hcipico test",
            stop: Shutdown.shared
        )
    }

    @Test func aCompleteRunIsRecordedAnalysedAndSaid() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = RecordedLog()
        let csv = directory + "/run.csv"
        let run = try Self.run(
            try Method(technique: .cv).script(),
            outputs: RunOutputs(csv: csv, results: directory + "/run", overwrite: false),
            log: log
        )
        let display = KeptDisplay()
        let outcome = await run.perform(display: display)
        guard case .complete = outcome else {
            Issue.record("\(outcome): \(log.messages(atLeast: .notice))")
            return
        }
        #expect(display.banners.count == 1 && display.packages > 0 && display.finished == 1)
        #expect(display.reports.count == 1)
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        #expect(text.contains("# tool: hcipico test") || text.contains("hcipico test"))
        #expect(FileManager.default.fileExists(atPath: directory + "/run.results.json"))
        let said = log.messages(atLeast: .notice)
        #expect(said.contains { $0.hasPrefix("wrote \(csv)") }, "\(said)")
    }

    /// A package past the run's largest current stops the run: `Z`, the cell confirmed off, and the
    /// outcome says a limit passed.
    @Test func aRunPastItsLimitIsStoppedAndLeftSafe() async throws {
        let log = RecordedLog()
        let run = try Self.run(
            try Method(technique: .cv).script(),
            outputs: RunOutputs(overwrite: false),
            limits: RunLimits(maximumCurrent: 1e-12),
            // At the device's own pace: a fast simulator may end its script before `Z` goes out.
            fast: false,
            log: log
        )
        let outcome = await run.perform(display: KeptDisplay())
        guard case .limitPassed = outcome else {
            Issue.record("\(outcome): \(log.messages(atLeast: .notice))")
            return
        }
        let said = log.messages(atLeast: .notice)
        #expect(said.contains { $0.contains("cell off") }, "\(said)")
        #expect(said.contains { $0.hasPrefix("run incomplete after") }, "\(said)")
    }

    /// An output that appeared after the outputs were checked is never replaced: the run is aborted
    /// before its first package is recorded, and the device is left safe.
    @Test func anOutputThatAppearedIsNotReplaced() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let csv = directory + "/run.csv"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: csv))
        let log = RecordedLog()
        let run = try Self.run(
            try Method(technique: .cv).script(),
            outputs: RunOutputs(csv: csv, overwrite: false),
            log: log
        )
        let outcome = await run.perform(display: KeptDisplay())
        guard case .outputExists = outcome else {
            Issue.record("\(outcome): \(log.messages(atLeast: .notice))")
            return
        }
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == "kept")
        #expect(log.messages(atLeast: .notice).contains { $0.hasSuffix("the run was aborted") })
    }
}
