import Foundation
import GRDB
import PicoAnalysis
import PicoLink
public import RunResults

/// The analysis side of the journal: which ended runs wait for their analysis, a run's points as a
/// table, and each run's results, kept as JSON and as rows (`JournalSchema.version6`).
extension Journal {
    /// Ended runs without an analysis, oldest first (at most `limit`).
    public func runsAwaitingAnalysis(limit: Int = 16) throws(JournalError) -> [Int64] {
        try readJournal { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT r.id FROM runs r LEFT JOIN run_analyses a ON a.run_id = r.id
                    WHERE r.state != 'running' AND a.run_id IS NULL ORDER BY r.id LIMIT ?
                    """,
                arguments: [limit]
            )
        }
    }

    /// The run's committed points as a table: `run` and `scan`, then a column per value name and unit.
    public func points(of run: Int64) throws -> PointTable {
        var builder = PointTableBuilder()
        try forEachPackage(of: run) { builder.add($0) }
        return builder.table
    }

    /// Stores `analysis`, replacing an earlier one of the same run.
    public func record(_ analysis: StoredAnalysis) throws(JournalError) {
        let json = analysis.results?.json
        try writeJournal { db in
            let run = analysis.run
            for table in ["peaks", "fit_parameters", "circuit_fits"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE run_id = ?", arguments: [run])
            }
            try db.execute(
                sql:
                    "INSERT OR REPLACE INTO run_analyses (run_id, analysed_at, kind, results, note) VALUES (?, ?, ?, ?, ?)",
                arguments: [run, analysis.analysedAt, analysis.kind.rawValue, json, analysis.note]
            )
            guard let results = analysis.results else { return }
            try Self.insertRows(results, run: run, db)
        }
    }

    /// The analysis of `run`, if it has one.
    public func analysis(of run: Int64) throws(JournalError) -> StoredAnalysis? {
        try readJournal { db in
            try Row.fetchOne(db, sql: "SELECT * FROM run_analyses WHERE run_id = ?", arguments: [run]).map(Self.stored)
        }
    }

    /// The analyses of `device`'s newest `limit` analysed runs, oldest first, with their runs.
    public func latestAnalyses(device: String, limit: Int) throws(JournalError) -> [(RunSummary, StoredAnalysis)] {
        let rows = try readJournal { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.* FROM run_analyses a JOIN runs r ON r.id = a.run_id JOIN devices d ON d.id = r.device_id
                    WHERE d.name = ? AND a.kind != 'none' ORDER BY r.id DESC LIMIT ?
                    """,
                arguments: [device, limit]
            )
        }
        let stored = rows.reversed().map(Self.stored)
        let runs = try self.runs(RunFilter(ids: stored.map(\.run)))
        let byID = Dictionary(uniqueKeysWithValues: runs.map { ($0.id, $0) })
        return stored.compactMap { analysis in byID[analysis.run].map { ($0, analysis) } }
    }

    /// The row id of `device`'s latest run with analysis results (nil when none has any).
    public func latestAnalysedRun(device: String) throws(JournalError) -> Int64? {
        try readJournal { db in
            try Int64.fetchOne(
                db,
                sql: """
                    SELECT MAX(a.run_id) FROM run_analyses a JOIN runs r ON r.id = a.run_id
                    JOIN devices d ON d.id = r.device_id WHERE d.name = ? AND a.kind != 'none'
                    """,
                arguments: [device]
            )
        }
    }

    private static func stored(_ row: Row) -> StoredAnalysis {
        let json: String? = row["results"]
        let results = json.flatMap { try? RunAnalysis.decoder.decode(RunAnalysis.self, from: Data($0.utf8)) }
        return StoredAnalysis(
            run: row["run_id"],
            kind: StoredAnalysis.Kind(rawValue: row["kind"]) ?? .none,
            analysedAt: row["analysed_at"],
            results: results,
            note: row["note"]
        )
    }

    private static func insertRows(_ results: RunAnalysis, run: Int64, _ db: Database) throws {
        let peak = try db.makeStatement(
            sql: """
                INSERT INTO peaks (run_id, curve, scan, seq, sweep, direction, potential, peak_current,
                    baseline_current, height, prominence, width, area, charge, left_foot, right_foot)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        var order: [String: Int] = [:]
        for (curve, found) in results.peaks {
            let key = "\(curve) \(found.scan)"
            let seq = order[key, default: 0] + 1
            order[key] = seq
            try peak.execute(
                arguments: [
                    run, curve, found.scan, seq, found.sweep, found.direction.rawValue, found.potential,
                    found.current, finite(found.baselineCurrent), finite(found.height), finite(found.prominence),
                    finite(found.width), finite(found.area), found.charge.flatMap(finite), finite(found.leftFoot),
                    finite(found.rightFoot),
                ]
            )
        }
        if let fit = results.fit {
            try db.execute(
                sql: """
                    INSERT INTO circuit_fits (run_id, circuit, weighting, converged, iterations, chi_squared,
                        reduced_chi_squared) VALUES (?, ?, ?, 1, ?, ?, ?)
                    """,
                arguments: [
                    run, fit.circuit.code, fit.weighting.rawValue, fit.iterations, finite(fit.chiSquared),
                    finite(fit.reducedChiSquared),
                ]
            )
            for (position, parameter) in fit.circuit.parameters.enumerated() {
                try db.execute(
                    sql:
                        "INSERT INTO fit_parameters (run_id, position, name, unit, value, std_error) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [
                        run, position + 1, parameter.name, parameter.unit, fit.values[position],
                        finite(fit.standardErrors[position]),
                    ]
                )
            }
        }
        if let (circuit, error) = results.fitFailure {
            try db.execute(
                sql: "INSERT INTO circuit_fits (run_id, circuit, converged, failure) VALUES (?, ?, 0, ?)",
                arguments: [run, circuit.code, error.description]
            )
        }
    }

    /// NULL for NaN and infinities.
    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
}
