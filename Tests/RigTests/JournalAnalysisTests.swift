import Foundation
import PicoAnalysis
import PicoLink
import RunResults
import Testing

@testable import RigJournal

/// A journal run's analysis: what its script asks for, its points read back as a table, and the results
/// stored as JSON and as rows and read back equal.
@Suite struct JournalAnalysisTests {
    /// A CV-like sweep up from 0 to 0.5 V with one Gaussian peak of 10 µA at 0.2 V on a sloped
    /// background, in 5 mV steps, recorded and ended.
    static func recordSweep(_ path: String, script: String, complete: Bool = true) async throws -> Int64 {
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.01)
        var run = JournalTests.provenance()
        run.script = script
        try await writer.runStarted(run)
        for index in 0...100 {
            let potential = Double(index) * 0.005
            let current = 1e-5 * exp(-pow((potential - 0.2) / 0.03, 2) / 2) + 2e-6 * potential
            let package = PicoPackage(
                device: "pico-1",
                run: 1,
                index: index,
                loop: 1,
                scan: nil,
                hostTime: 1_795_600_000 + Double(index),
                values: [
                    PicoValue(variable: .appliedPotential, name: "p", value: potential),
                    PicoValue(variable: .current, name: "c", value: current, status: .ok),
                ]
            )
            try await writer.record(package, run: run.runID)
        }
        #expect(try journal.runsAwaitingAnalysis().isEmpty, "a running run is not analysed")
        try await writer.runEnded(run.runID, JournalRunEnd(complete: complete, reason: nil, time: 1_795_600_200))
        try await writer.flush()
        await writer.close()
        return try #require(try journal.runs().last?.id)
    }

    @Test(arguments: [
        ("e\nvar p\nvar c\nmeas_loop_lsv p c 0 500m 5m 50m\nendloop\n", RunAnalyser.Plan.peaks(scanRate: 0.05)),
        ("e\nvar p\nvar c\nmeas_loop_cv p c 0 500m -500m 10m 100m\nendloop\n", .peaks(scanRate: 0.1)),
        (
            "e\nvar p\nvar c\nvar r\nstore_var r 100m ja\nmeas_loop_cv p c 0 500m -500m 10m r\nendloop\n",
            .peaks(scanRate: nil)
        ),
        ("e\nvar p\nvar c\nmeas_loop_dpv p c 0 500m 5m 25m 5m 100m\nendloop\n", .peaks(scanRate: nil)),
        ("e\nvar f\nvar r\nvar i\nmeas_loop_eis f r i 10m 100k 100 31i 0\nendloop\n", .fit),
        ("e\nvar p\nvar c\nmeas_loop_ca p c 200m 50m 300m\nendloop\n", .none("nothing to analyse in CA")),
        ("e\nvar p\nset_e 0\n", .none("its script measures nothing")),
    ])
    func theScriptSaysWhatIsAnalysed(script: String, plan: RunAnalyser.Plan) {
        #expect(RunAnalyser.plan(script: script) == plan)
    }

    @Test func aSweepsPeakIsFoundStoredAndReadBack() async throws {
        let path = JournalTests.path()
        defer { JournalTests.remove(path) }
        let id = try await Self.recordSweep(path, script: "e\nvar p\nvar c\nmeas_loop_lsv p c 0 500m 5m 50m\nendloop\n")
        let journal = try Journal.open(path: path, rig: "bench")
        #expect(try journal.runsAwaitingAnalysis() == [id])
        // `analyze --stored` before the rig analysed the run: a note, no results.
        let none = try JournalAnalyser.analysis(of: id, in: journal, stored: true, settings: AnalysisSettings())
        #expect(none.results == nil && none.note == "not analysed yet")

        let table = try journal.points(of: id)
        #expect(table.columns.map(\.name) == ["run", "scan", "p", "c"])
        #expect(table.columns.map(\.unit) == ["", "", "V", "A"])
        #expect(table.rowCount == 101)

        let analysis = try JournalAnalyser.analyse(run: id, in: journal, settings: AnalysisSettings(), now: 5)
        #expect(analysis.kind == .peaks && analysis.analysedAt == 5)
        let peaks = try #require(analysis.results).peaks
        #expect(peaks.count == 1)
        let peak = try #require(peaks.first?.peak)
        #expect(abs(peak.potential - 0.2) <= 0.005)
        #expect(peak.charge != nil, "the script's scan rate gives the charge")

        #expect(
            try JournalAnalyser.analysis(of: id, in: journal, stored: false, settings: AnalysisSettings()).kind
                == .peaks
        )
        try journal.record(analysis)
        #expect(try journal.runsAwaitingAnalysis().isEmpty)
        #expect(try journal.analysis(of: id) == analysis)
        let stored = try JournalAnalyser.analysis(of: id, in: journal, stored: true, settings: AnalysisSettings())
        #expect(stored == analysis)
        let rows = try journal.readJournal { db in
            try Double.fetchAll(
                db,
                sql: "SELECT potential FROM peaks WHERE run_id = ? AND curve = 'c' AND scan = 1",
                arguments: [id]
            )
        }
        #expect(rows == [peak.potential])
        let trend = try journal.latestAnalyses(device: "pico-1", limit: 5)
        #expect(trend.map(\.0.id) == [id])

        // Recording again replaces the rows instead of adding to them.
        try journal.record(analysis)
        let count = try journal.readJournal { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM peaks") }
        #expect(count == 1)
    }

    /// The rig's path: the writer stores a run's analysis after the run's end, in its next transaction,
    /// with the run's row found from its UUID (held after the end, or read back); a second analysis of the
    /// same run replaces the first, rows and all.
    @Test func theWriterStoresAnAnalysisAfterItsRun() async throws {
        let path = JournalTests.path()
        defer { JournalTests.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.01)
        let run = JournalTests.provenance()
        try await writer.runStarted(run)
        try await writer.runEnded(run.runID, JournalRunEnd(complete: true, reason: nil, time: 1))
        let peak = VoltammetricPeak(
            scan: 1,
            sweep: 1,
            direction: .anodic,
            index: 3,
            potential: 0.2,
            current: 1e-5,
            baselineCurrent: 1e-6,
            height: 9e-6,
            prominence: 9e-6,
            width: 0.05,
            area: 4e-7,
            charge: nil,
            leftFoot: 0.1,
            rightFoot: 0.3,
            leftFootBaseline: 1e-6,
            rightFootBaseline: 1e-6
        )
        let results = RunAnalysis(run: 1, results: [.peaks(current: "c", [peak, peak])])
        let first = StoredAnalysis(run: 0, kind: .peaks, analysedAt: 7, results: results)
        try await writer.recordAnalysis(first, json: results.json, of: run.runID)
        try await writer.flush()
        let id = try #require(try journal.runs().last?.id)
        var expected = first
        expected.run = id
        #expect(try journal.analysis(of: id) == expected)
        #expect(writer.analysisStoringSeconds > 0)

        // Again, from a writer that never saw the run (its row read back from the journal): replaced.
        await writer.close()
        let later = journal.writer(commitInterval: 0.01)
        let fewer = RunAnalysis(run: 1, results: [.peaks(current: "c", [peak])])
        try await later.recordAnalysis(
            StoredAnalysis(run: 0, kind: .peaks, analysedAt: 8, results: fewer),
            json: fewer.json,
            of: run.runID
        )
        try await later.flush()
        await later.close()
        #expect(try journal.analysis(of: id)?.analysedAt == 8)
        let count = try journal.readJournal { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM peaks") }
        #expect(count == 1)
    }

    @Test func aFitAndItsFailureAreRowsToo() throws {
        let path = JournalTests.path()
        defer { JournalTests.remove(path) }
        let journal = try Journal.open(path: path, rig: "bench")
        let circuit = try EquivalentCircuit("R(RC)")
        let frequencies = (0..<30).map { pow(10, 5 - Double($0) / 6) }
        let spectrum = ImpedanceSpectrum(
            frequencies: frequencies,
            impedances: frequencies.map { circuit.impedance(at: $0, [100, 1000, 1e-6]) }
        )
        let fit = try CircuitFitter.fit(circuit, to: spectrum)
        try journal.readJournal { _ in }  // the journal is open
        try journal.writeJournal { db in
            try db.execute(sql: "INSERT INTO devices (id, name) VALUES (1, 'pico-1')")
            for id in [1, 2] {
                try db.execute(
                    sql: """
                        INSERT INTO runs (id, uuid, device_id, device_run, title, state, started_at, transport,
                            script_name, script, script_sha256, tool_version)
                        VALUES (?, ?, 1, ?, 'EIS', 'complete', 0, 'sim', 'EIS', '', '', 'test')
                        """,
                    arguments: [id, "uuid-\(id)", id]
                )
            }
        }
        try journal.record(
            StoredAnalysis(run: 1, kind: .fit, analysedAt: 1, results: RunAnalysis(run: 1, results: [.fit(fit)]))
        )
        let failure = CircuitFitError.didNotConverge(iterations: 500, reason: "the step became too small")
        try journal.record(
            StoredAnalysis(
                run: 2,
                kind: .fit,
                analysedAt: 2,
                results: RunAnalysis(run: 2, results: [.fitFailed(circuit, failure)])
            )
        )
        let parameters = try journal.readJournal { db in
            try Double.fetchAll(db, sql: "SELECT value FROM fit_parameters WHERE run_id = 1 ORDER BY position")
        }
        #expect(parameters == fit.values)
        let converged = try journal.readJournal { db in
            try Int.fetchAll(db, sql: "SELECT converged FROM circuit_fits ORDER BY run_id")
        }
        #expect(converged == [1, 0])
        #expect(try journal.analysis(of: 2)?.results?.fitFailure?.error == failure)
        #expect(try journal.analysis(of: 1)?.results?.fit == fit)
    }
}
