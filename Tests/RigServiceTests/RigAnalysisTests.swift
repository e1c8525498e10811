import Foundation
import Logging
import PicoAnalysis
import RigCore
import RigJournal
import RigService
import RunResults
import Testing

/// The rig analyses each run as it ends: a CV's peaks and an EIS's circuit fit are in the journal when
/// the rig has ended, and a device whose analysis is off gets a row that says so.
@Suite struct RigAnalysisTests {
    static let cv = """
        e
        var p
        var c
        set_pgstat_mode 2
        set_max_bandwidth 40
        set_range ba 50u
        cell_on
        meas_loop_cv p c 0 500m -500m 10m 100m
          pck_start
          pck_add p
          pck_add c
          pck_end
        endloop
        on_finished:
          cell_off

        """

    static let eis = """
        e
        var f
        var z_re
        var z_im
        set_pgstat_mode 3
        set_max_bandwidth 200k
        set_range ba 100u
        set_e 0
        cell_on
        meas_loop_eis f z_re z_im 10m 100k 100 31i 0
          pck_start
          pck_add f
          pck_add z_re
          pck_add z_im
          pck_end
        endloop
        on_finished:
          cell_off

        """

    @Test func everyEndedRunIsAnalysedIntoTheJournal() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("riganalysis-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.cv.write(toFile: folder + "/CV.mscr", atomically: true, encoding: .utf8)
        try Self.eis.write(toFile: folder + "/EIS.mscr", atomically: true, encoding: .utf8)
        let (config, _) = try RigServiceTests.config(
            """
            [[device]]
            name = "cv"
            transport = "sim"
            realtime = false
            script = "\(folder)/CV.mscr"
            schedule = "once"

            [[device]]
            name = "eis"
            transport = "sim"
            realtime = false
            script = "\(folder)/EIS.mscr"
            schedule = "once"
            [device.analysis]
            circuit = "R(RC)"
            weighting = "proportional"

            [[device]]
            name = "ca"
            transport = "sim"
            realtime = false
            script = "CA.mscr"
            schedule = "once"
            [device.analysis]
            enabled = false
            """,
            extra: "\n[analysis]\nsmooth = \"off\"\n"
        )
        let outcome = try await RigService.run(
            config,
            settings: try RigServiceTests.settings(config, folder),
            logger: Logger(label: "test")
        )
        #expect(outcome.journalFailure == nil)
        let journal = try Journal.openForReading(path: config.journal)
        let runs = Dictionary(uniqueKeysWithValues: try journal.runs().map { ($0.device, $0) })
        #expect(runs.values.allSatisfy { $0.state == "complete" }, "\(runs)")

        let cvRun = try #require(runs["cv"])
        let cv = try #require(try journal.analysis(of: cvRun.id))
        #expect(cv.kind == .peaks)
        let peaks = try #require(cv.results).peaks.map(\.peak)
        #expect(peaks.filter { $0.direction == .anodic && $0.current > 0 }.count == 1, "\(peaks)")
        #expect(peaks.filter { $0.direction == .cathodic && $0.current < 0 }.count == 1, "\(peaks)")
        // The script's scan rate (100 mV/s) gives each peak's charge.
        for peak in peaks { #expect(abs((peak.charge ?? 0) - peak.area / 0.1) <= 1e-12 * abs(peak.area) / 0.1) }

        let eisRun = try #require(runs["eis"])
        let eis = try #require(try journal.analysis(of: eisRun.id))
        let fit = try #require(eis.results?.fit, "\(eis)")
        #expect(fit.weighting == .proportional)
        // The simulator's Randles cell: 560 Ω in series with 10 kΩ ∥ 33 nF.
        for (value, truth) in zip(fit.values, [560.0, 10_000, 33e-9]) {
            #expect(abs(value - truth) <= 0.01 * truth, "\(fit.values)")
        }

        // The rig analysed the points it kept as they were recorded: the same results as from the journal.
        for (name, stored) in [("cv", cv), ("eis", eis)] {
            let settings = try #require(config.devices.first { $0.name == name }?.analysis ?? config.analysis)
            let fromJournal = try JournalAnalyser.analyse(
                run: stored.run,
                in: journal,
                settings: settings,
                now: stored.analysedAt
            )
            #expect(fromJournal.results?.json == stored.results?.json, "\(name)")
        }

        let caRun = try #require(runs["ca"])
        let ca = try #require(try journal.analysis(of: caRun.id))
        #expect(ca.kind == .none && ca.note == "the analysis is off")
        #expect(try journal.runsAwaitingAnalysis().isEmpty)
    }
}
