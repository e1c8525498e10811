import Foundation
import GRDB
import GRDBSQLite
import MethodSCRIPT
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

    /// The run's committed points as a table: `run` and `scan`, then a column per value (its script
    /// name, or its variable code, and its unit), read in one ordered pass without making packages.
    public func points(of run: Int64) throws(JournalError) -> PointTable {
        try readJournal { db in try Self.points(of: run, db) }
    }

    /// The runs with these UUIDs, by UUID (a run whose start is not committed yet is left out); asked for
    /// 32 at a time.
    public func analysisJobs(uuids: [String]) throws(JournalError) -> [String: AnalysisJob] {
        try readJournal { db in
            var jobs: [String: AnalysisJob] = [:]
            let asked = Dictionary(uuids.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
            let lowercased = Array(asked.keys)
            for start in stride(from: 0, to: lowercased.count, by: 32) {
                let chunk = Array(lowercased[start..<min(start + 32, lowercased.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let statement = try db.cachedStatement(sql: Self.jobQuery + " WHERE r.uuid IN (\(marks))")
                for row in try Row.fetchAll(statement, arguments: StatementArguments(chunk)) {
                    let uuid: String = row[7]
                    if let name = asked[uuid] { jobs[name] = Self.job(row) }
                }
            }
            return jobs
        }
    }

    /// The runs with these row ids.
    public func analysisJobs(runs: [Int64]) throws(JournalError) -> [AnalysisJob] {
        try readJournal { db in
            let statement = try db.cachedStatement(sql: Self.jobQuery + " WHERE r.id = ?")
            return try runs.compactMap { try Row.fetchOne(statement, arguments: [$0]).map(Self.job) }
        }
    }

    /// The points of each of `runs`, read in one transaction.
    public func points(of runs: [Int64]) throws(JournalError) -> [Int64: PointTable] {
        try readJournal { db in
            var tables: [Int64: PointTable] = [:]
            for run in runs { tables[run] = try Self.points(of: run, db) }
            return tables
        }
    }

    private static let jobQuery = """
        SELECT r.id, d.name, r.device_run, r.script, r.pruned_at IS NOT NULL, r.state != 'running',
            a.run_id IS NOT NULL, r.uuid
        FROM runs r JOIN devices d ON d.id = r.device_id LEFT JOIN run_analyses a ON a.run_id = r.id
        """

    private static func job(_ row: Row) -> AnalysisJob {
        AnalysisJob(
            run: row[0],
            device: row[1],
            deviceRun: row[2],
            script: row[3],
            pruned: row[4],
            ended: row[5],
            analysed: row[6]
        )
    }

    private static func points(of run: Int64, _ db: Database) throws -> PointTable {
        let deviceRun =
            try Int.fetchOne(db.cachedStatement(sql: "SELECT device_run FROM runs WHERE id = ?"), arguments: [run]) ?? 0
        // What each position holds; when every position holds one kind of value throughout the run (as a
        // script's packages do), the values are read as numbers alone, through SQLite's C API.
        let kinds = try Row.fetchAll(
            db.cachedStatement(
                sql:
                    "SELECT position, variable, name FROM package_values WHERE run_id = ? GROUP BY position, variable, name"
            ),
            arguments: [run]
        ).map { (position: $0[0] as Int, code: $0[1] as String, name: $0[2] as String?) }
        var table = PointColumns(deviceRun: deviceRun)
        if Set(kinds.map(\.position)).count == kinds.count {
            var columnOf: [Int: Int] = [:]
            for kind in kinds { columnOf[kind.position] = table.column(code: kind.code, name: kind.name) }
            let scans = try db.cachedStatement(
                sql: "SELECT idx, COALESCE(scan, 1) FROM packages WHERE run_id = ? ORDER BY idx"
            )
            var scanOf: [Int: Int] = [:]
            try Self.step(scans, run) { statement in
                scanOf[Int(sqlite3_column_int64(statement, 0))] = Int(sqlite3_column_int64(statement, 1))
            }
            let values = try db.cachedStatement(
                sql: "SELECT idx, position, value FROM package_values WHERE run_id = ? ORDER BY idx, position"
            )
            try Self.step(values, run) { statement in
                let index = Int(sqlite3_column_int64(statement, 0))
                table.package(index, scan: scanOf[index] ?? 1)
                guard let column = columnOf[Int(sqlite3_column_int64(statement, 1))] else { return }
                let null = sqlite3_column_type(statement, 2) == SQLITE_NULL
                table.set(column, null ? .nan : sqlite3_column_double(statement, 2))
            }
        } else {
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT p.idx, COALESCE(p.scan, 1), v.variable, v.name, v.value
                    FROM packages p JOIN package_values v ON v.run_id = p.run_id AND v.idx = p.idx
                    WHERE p.run_id = ? ORDER BY p.idx, v.position
                    """,
                arguments: [run]
            )
            while let row = try cursor.next() {
                table.package(row[0], scan: row[1])
                let value: Double? = row[4]
                table.set(table.column(code: row[2], name: row[3]), value ?? .nan)
            }
        }
        return table.table
    }

    /// Steps `statement` with the run bound as its one argument, calling `row` at each row.
    private static func step(_ statement: Statement, _ run: Int64, _ row: (SQLiteStatement) -> Void) throws {
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        sqlite3_bind_int64(raw, 1, run)
        defer { sqlite3_reset(raw) }
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
            row(raw)
        }
    }

    /// Stores `analysis`, replacing an earlier one of the same run.
    public func record(_ analysis: StoredAnalysis) throws(JournalError) { try record([analysis]) }

    /// Stores `analyses` in one transaction, each replacing an earlier one of the same run.
    public func record(_ analyses: [StoredAnalysis]) throws(JournalError) {
        guard !analyses.isEmpty else { return }
        let rows = analyses.map { ($0, $0.results?.json) }
        try writeJournal { db in
            for (analysis, json) in rows { try Self.store(analysis, json: json, db) }
        }
    }

    /// Stores `analysis` (its results as `json`) in the transaction of `db`, replacing an earlier one of
    /// the same run (the journal's writer stores the rig's this way, after the run's end).
    static func store(_ analysis: StoredAnalysis, json: String?, _ db: Database) throws {
        let run = analysis.run
        // Most runs have no analysis yet: a plain insert, and only when the run has one the replacing.
        let insert = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO run_analyses (run_id, analysed_at, kind, results, note) VALUES (?, ?, ?, ?, ?)"
        ).sqliteStatement
        sqlite3_bind_int64(insert, 1, run)
        sqlite3_bind_double(insert, 2, analysis.analysedAt)
        SQLiteBinding.bind(insert, 3, analysis.kind.rawValue)
        SQLiteBinding.bind(insert, 4, json)
        SQLiteBinding.bind(insert, 5, analysis.note)
        try SQLiteBinding.step(insert, db)
        if sqlite3_changes(db.sqliteConnection) == 0 {
            for table in ["peaks", "fit_parameters", "circuit_fits"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE run_id = ?", arguments: [run])
            }
            try db.execute(
                sql: "UPDATE run_analyses SET analysed_at = ?, kind = ?, results = ?, note = ? WHERE run_id = ?",
                arguments: [analysis.analysedAt, analysis.kind.rawValue, json, analysis.note, run]
            )
        }
        if let results = analysis.results { try insertRows(results, run: run, db) }
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
        let peak = try db.cachedStatement(
            sql: """
                INSERT INTO peaks (run_id, curve, scan, seq, sweep, direction, potential, peak_current,
                    baseline_current, height, prominence, width, area, charge, left_foot, right_foot)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        let statement = peak.sqliteStatement
        for (curve, seq, found) in results.numberedPeaks {
            sqlite3_bind_int64(statement, 1, run)
            SQLiteBinding.bind(statement, 2, curve)
            sqlite3_bind_int64(statement, 3, Int64(found.scan))
            sqlite3_bind_int64(statement, 4, Int64(seq))
            sqlite3_bind_int64(statement, 5, Int64(found.sweep))
            SQLiteBinding.bind(statement, 6, found.direction.rawValue)
            let reals = [
                found.potential, found.current, finite(found.baselineCurrent), finite(found.height),
                finite(found.prominence), finite(found.width), finite(found.area), found.charge.flatMap(finite),
                finite(found.leftFoot), finite(found.rightFoot),
            ]
            for (offset, value) in reals.enumerated() { SQLiteBinding.bind(statement, Int32(7 + offset), value) }
            try SQLiteBinding.step(statement, db)
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
