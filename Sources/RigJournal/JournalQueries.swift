import Foundation
import GRDB
import MethodSCRIPT
import PicoLink

/// The readers' SQL: run listings, provenance and a run's packages.
enum JournalQueries {
    static func runs(_ filter: RunFilter, _ db: Database) throws -> [RunSummary] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let ids = filter.ids {
            conditions.append("r.id IN (\(ids.map { _ in "?" }.joined(separator: ",")))")
            for id in ids { _ = arguments.append(contentsOf: [id]) }
        }
        if let devices = filter.devices {
            conditions.append("d.name IN (\(devices.map { _ in "?" }.joined(separator: ",")))")
            for device in devices { _ = arguments.append(contentsOf: [device]) }
        }
        if let since = filter.since {
            conditions.append("r.started_at >= ?")
            _ = arguments.append(contentsOf: [since])
        }
        if let until = filter.until {
            conditions.append("r.started_at < ?")
            _ = arguments.append(contentsOf: [until])
        }
        if let before = filter.before {
            conditions.append("r.id < ?")
            _ = arguments.append(contentsOf: [before])
        }
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT r.id, r.uuid, d.name AS device, r.device_run, r.title, r.script_name, r.started_at, r.ended_at,
                    r.packages, r.state, r.reason, r.overflowed, r.rssi, r.pruned_at, r.cell, r.found_at_connect
                FROM runs r JOIN devices d ON d.id = r.device_id
                \(whereClause)
                ORDER BY r.started_at \(filter.latest == nil ? "" : "DESC"), r.id \(filter.latest == nil ? "" : "DESC")
                \(filter.latest.map { "LIMIT \($0)" } ?? "")
                """,
            arguments: arguments
        )
        let ordered = filter.latest == nil ? rows : rows.reversed()
        return ordered.map { row in
            RunSummary(
                id: row["id"],
                uuid: row["uuid"],
                device: row["device"],
                deviceRun: row["device_run"],
                title: row["title"],
                scriptName: row["script_name"],
                startedAt: row["started_at"],
                endedAt: row["ended_at"],
                packages: row["packages"],
                state: row["state"],
                reason: row["reason"],
                overflowed: row["overflowed"],
                rssi: row["rssi"],
                prunedAt: row["pruned_at"],
                cell: row["cell"],
                foundAtConnect: row["found_at_connect"]
            )
        }
    }

    static func provenance(_ run: Int64, _ db: Database) throws -> RunProvenance {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT r.*, d.name AS device FROM runs r JOIN devices d ON d.id = r.device_id WHERE r.id = ?",
                arguments: [run]
            )
        else { throw JournalError.unknownRun(String(run)) }
        return RunProvenance(
            runID: UUID(uuidString: row["uuid"]) ?? UUID(),
            device: row["device"],
            deviceRun: row["device_run"],
            title: row["title"],
            address: row["address"],
            addressType: row["address_type"],
            transport: row["transport"],
            firmware: row["firmware"],
            serialNumber: row["serial_number"],
            scriptName: row["script_name"],
            script: row["script"],
            scriptSHA256: row["script_sha256"],
            link: row["link"],
            toolVersion: row["tool_version"],
            startTime: row["started_at"],
            rssi: row["rssi"],
            foundAtConnect: row["found_at_connect"]
        )
    }

    /// Walks the packages and their values in one ordered join, building one package at a time.
    static func forEachPackage(
        _ run: Int64,
        after first: Int = -1,
        limit: Int = -1,
        _ db: Database,
        _ body: (PicoPackage) throws -> Void
    ) throws {
        let device = try String.fetchOne(
            db,
            sql: "SELECT d.name FROM runs r JOIN devices d ON d.id = r.device_id WHERE r.id = ?",
            arguments: [run]
        )
        guard let device else { throw JournalError.unknownRun(String(run)) }
        let deviceRun = try Int.fetchOne(db, sql: "SELECT device_run FROM runs WHERE id = ?", arguments: [run]) ?? 0
        let cursor = try Row.fetchCursor(
            db,
            sql: """
                SELECT p.idx, p.loop, p.scan, p.host_time, v.variable, v.name, v.value, v.status, v.current_range,
                    v.noise
                FROM packages p JOIN package_values v ON v.run_id = p.run_id AND v.idx = p.idx
                WHERE p.run_id = ? AND p.idx > ? AND p.idx IN (
                    SELECT idx FROM packages WHERE run_id = ? AND idx > ? ORDER BY idx LIMIT ?)
                ORDER BY p.idx, v.position
                """,
            arguments: [run, first, run, first, limit]
        )
        var current: PicoPackage?
        while let row = try cursor.next() {
            let index: Int = row[0]
            if let package = current, package.index != index {
                try body(package)
                current = nil
            }
            if current == nil {
                current = PicoPackage(
                    device: device,
                    run: deviceRun,
                    index: index,
                    loop: row[1],
                    scan: row[2],
                    hostTime: row[3],
                    values: []
                )
            }
            let code: String = row[4]
            let status: Int? = row[7]
            let range: Int? = row[8]
            let noise: Int? = row[9]
            current?.values.append(
                PicoValue(
                    variable: VariableType(code: code) ?? .unknown,
                    name: row[5],
                    value: row[6] ?? .nan,
                    status: status.map { PackageStatus(rawValue: UInt8(truncatingIfNeeded: $0)) },
                    range: range.map { MeasurementRange(rawValue: UInt8(truncatingIfNeeded: $0)) },
                    noise: noise.map { UInt8(truncatingIfNeeded: $0) }
                )
            )
        }
        if let package = current { try body(package) }
    }
}
