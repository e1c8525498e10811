import GRDB
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
                    transport, firmware, serial_number, script_name, script, script_sha256, link, tool_version, rssi,
                    found_at_connect)
                VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        let arguments: StatementArguments = [
            run.runID.uuidString.lowercased(), device, run.deviceRun, run.title, run.startTime, run.address,
            run.addressType, run.transport, run.firmware, run.serialNumber, run.scriptName, run.script,
            run.scriptSHA256, run.link, run.toolVersion, run.rssi, run.foundAtConnect,
        ]
        try insert.execute(arguments: arguments)
        return db.lastInsertedRowID
    }

    static func addPackages(_ count: Int, run: Int64, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE runs SET packages = packages + ? WHERE id = ?")
            .execute(arguments: [count, run])
    }

    static func endRun(_ end: JournalRunEnd, run: Int64, _ db: Database) throws {
        try db.cachedStatement(
            sql: "UPDATE runs SET state = ?, reason = ?, ended_at = ?, overflowed = ?, cell = ? WHERE id = ?"
        ).execute(
            arguments: [end.complete ? "complete" : "incomplete", end.reason, end.time, end.overflowed, end.cell, run]
        )
    }
}
