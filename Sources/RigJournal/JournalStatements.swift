import GRDB
import GRDBSQLite
import PicoLink

/// The writer's SQL, as cached prepared statements (compiled once per connection).
enum JournalStatements {
    /// Inserts the run (and its device, once) as `running`; returns the run's row id.
    static func insertRun(_ run: RunProvenance, _ db: Database) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO devices (name) VALUES (?) ON CONFLICT (name) DO NOTHING")
            .execute(arguments: [run.device])
        let device = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM devices WHERE name = ?"),
            arguments: [run.device]
        )
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO runs (uuid, device_id, device_run, title, state, started_at, address, address_type,
                    transport, firmware, serial_number, script_name, script, script_sha256, link, tool_version, rssi)
                VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        let arguments: StatementArguments = [
            run.runID.uuidString.lowercased(), device, run.deviceRun, run.title, run.startTime, run.address,
            run.addressType, run.transport, run.firmware, run.serialNumber, run.scriptName, run.script,
            run.scriptSHA256, run.link, run.toolVersion, run.rssi,
        ]
        try insert.execute(arguments: arguments)
        return db.lastInsertedRowID
    }

    /// The hot path: one package row and one row per value, bound through SQLite's C API on GRDB's
    /// cached statements (GRDB's `StatementArguments` would allocate per row).
    /// The two prepared inserts of a package, looked up once per transaction.
    struct PackageInserts {
        let packageRow: SQLiteStatement
        let valueRow: SQLiteStatement

        init(_ db: Database) throws {
            packageRow = try db.cachedStatement(
                sql: "INSERT INTO packages (run_id, idx, loop, scan, host_time, device_time) VALUES (?, ?, ?, ?, ?, ?)"
            ).sqliteStatement
            valueRow = try db.cachedStatement(
                sql: """
                    INSERT INTO package_values (run_id, idx, position, variable, name, value, status, current_range, noise)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).sqliteStatement
        }
    }

    static func insertPackage(_ package: PicoPackage, run: Int64, _ inserts: PackageInserts, _ db: Database) throws {
        let packageRow = inserts.packageRow
        sqlite3_bind_int64(packageRow, 1, run)
        sqlite3_bind_int64(packageRow, 2, Int64(package.index))
        sqlite3_bind_int64(packageRow, 3, Int64(package.loop))
        bind(packageRow, 4, package.scan.map(Int64.init))
        sqlite3_bind_double(packageRow, 5, package.hostTime)
        bind(packageRow, 6, package.deviceTime)
        try step(packageRow, db)
        let valueRow = inserts.valueRow
        for (position, item) in package.values.enumerated() {
            sqlite3_bind_int64(valueRow, 1, run)
            sqlite3_bind_int64(valueRow, 2, Int64(package.index))
            sqlite3_bind_int64(valueRow, 3, Int64(position))
            var code = (
                UInt8(truncatingIfNeeded: item.variable.rawValue >> 8),
                UInt8(truncatingIfNeeded: item.variable.rawValue)
            )
            withUnsafeBytes(of: &code) { bytes in
                _ = sqlite3_bind_text(valueRow, 4, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), 2, transient)
            }
            if let name = item.name {
                sqlite3_bind_text(valueRow, 5, name, -1, transient)
            } else {
                sqlite3_bind_null(valueRow, 5)
            }
            bind(valueRow, 6, item.value.isNaN ? nil : item.value)
            bind(valueRow, 7, item.status.map { Int64($0.rawValue) })
            bind(valueRow, 8, item.range.map { Int64($0.rawValue) })
            bind(valueRow, 9, item.noise.map { Int64($0) })
            try step(valueRow, db)
        }
    }

    /// SQLite copies bound text at once (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ statement: SQLiteStatement, _ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    private static func bind(_ statement: SQLiteStatement, _ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    private static func step(_ statement: SQLiteStatement, _ db: Database) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection))
            )
        }
    }

    static func addPackages(_ count: Int, run: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE runs SET packages = packages + ? WHERE id = ?")
            .execute(arguments: [count, run])
    }

    static func endRun(_ end: JournalRunEnd, run: Int64, _ db: Database) throws {
        try db.cachedStatement(
            sql: "UPDATE runs SET state = ?, reason = ?, ended_at = ?, overflowed = ? WHERE id = ?"
        ).execute(arguments: [end.complete ? "complete" : "incomplete", end.reason, end.time, end.overflowed, run])
    }
}
