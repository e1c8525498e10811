import GRDBSQLite

/// What a rig's journal holds, checked run by run through SQLite's C API (read only).
struct JournalCheck {
    var runs = 0
    var complete = 0
    var open = 0
    var packages = 0
    var samples = 0
    var overflowed = 0
    /// Packages complete runs lack against the first complete run of the same device.
    var lost = 0
    /// Runs whose package numbers are not 0…n-1.
    var gaps = 0
    /// Runs whose `packages` column differs from their package rows.
    var mismatched = 0
    var integrity = ""

    init(path: String) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else {
            throw SoakBench.Failure(description: "cannot open \(path)")
        }
        defer { sqlite3_close(db) }
        var firstComplete: [String: Int] = [:]
        try Self.rows(
            db,
            """
            SELECT d.name, r.state, r.packages, r.overflowed,
                   (SELECT COUNT(*) FROM packages p WHERE p.run_id = r.id),
                   (SELECT MAX(idx) FROM packages p WHERE p.run_id = r.id)
            FROM runs r JOIN devices d ON d.id = r.device_id ORDER BY r.id
            """
        ) { row in
            let device = String(cString: sqlite3_column_text(row, 0))
            let state = String(cString: sqlite3_column_text(row, 1))
            let counted = Int(sqlite3_column_int64(row, 2))
            let rows = Int(sqlite3_column_int64(row, 4))
            let last = sqlite3_column_type(row, 5) == SQLITE_NULL ? -1 : Int(sqlite3_column_int64(row, 5))
            runs += 1
            packages += rows
            overflowed += Int(sqlite3_column_int64(row, 3))
            if state == "running" { open += 1 }
            if rows != last + 1 { gaps += 1 }
            if counted != rows { mismatched += 1 }
            if state == "complete" {
                complete += 1
                let expected = firstComplete[device] ?? rows
                firstComplete[device] = expected
                lost += max(0, expected - rows)
            }
        }
        try Self.rows(db, "SELECT COUNT(*) FROM package_values") { samples = Int(sqlite3_column_int64($0, 0)) }
        try Self.rows(db, "PRAGMA integrity_check") { integrity = String(cString: sqlite3_column_text($0, 0)) }
    }

    private static func rows(_ db: OpaquePointer, _ sql: String, _ each: (OpaquePointer) -> Void) throws {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SoakBench.Failure(description: String(cString: sqlite3_errmsg(db)))
        }
        defer { sqlite3_finalize(statement) }
        while sqlite3_step(statement) == SQLITE_ROW { each(statement) }
    }
}
