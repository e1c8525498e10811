import Foundation
import GRDB

/// The forwarder's side of the journal: what a sink has not confirmed, the positions it confirmed, and
/// pruning of what it holds. Positions move only after the sink has committed, so a crash anywhere
/// resends (at least once); the sink's own key makes the resend harmless.
extension Journal {
    /// Up to about `limit` packages (whole packages, every value) that `sink` has not confirmed, with the
    /// rows of their runs; runs whose only news is their state come along without packages. Nil when
    /// the sink is up to date.
    public func forwardBatch(sink: String, limit: Int) throws(JournalError) -> ForwardBatch? {
        try readJournal { db in
            let runs = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.*, d.name AS device, f.packages AS f_packages, f.last_idx AS f_last_idx, f.state AS f_state
                    FROM runs r JOIN devices d ON d.id = r.device_id
                    LEFT JOIN forward_positions f ON f.sink = ? AND f.run_id = r.id
                    WHERE r.pruned_at IS NULL
                        AND (f.run_id IS NULL OR f.packages < r.packages OR f.state != r.state)
                    ORDER BY r.id
                    """,
                arguments: [sink]
            )
            guard !runs.isEmpty else { return nil }
            var batch = ForwardBatch()
            var room = max(1, limit)
            for row in runs {
                let id: Int64 = row["id"]
                let committed: Int = row["packages"]
                let forwarded: Int = row["f_packages"] ?? 0
                let lastIndex: Int = row["f_last_idx"] ?? -1
                let runIndex = batch.runs.count
                var lastSent = lastIndex
                var sent = 0
                if forwarded < committed && room > 0 {
                    let packages = try Row.fetchAll(
                        db,
                        sql: """
                            SELECT idx, loop, scan, host_time, device_time FROM packages
                            WHERE run_id = ? AND idx > ? ORDER BY idx LIMIT ?
                            """,
                        arguments: [id, lastIndex, room]
                    )
                    for package in packages {
                        batch.packages.append(
                            ForwardBatch.Package(
                                run: runIndex,
                                index: package[0],
                                loop: package[1],
                                scan: package[2],
                                hostTime: package[3],
                                deviceTime: package[4]
                            )
                        )
                    }
                    sent = packages.count
                    if let last = packages.last {
                        lastSent = last[0]
                        let values = try Row.fetchCursor(
                            db,
                            sql: """
                                SELECT idx, position, variable, name, value, status, current_range, noise
                                FROM package_values WHERE run_id = ? AND idx > ? AND idx <= ? ORDER BY idx, position
                                """,
                            arguments: [id, lastIndex, lastSent]
                        )
                        while let value = try values.next() {
                            batch.values.append(
                                ForwardBatch.Value(
                                    run: runIndex,
                                    index: value[0],
                                    position: value[1],
                                    variable: value[2],
                                    name: value[3],
                                    value: value[4],
                                    status: value[5],
                                    range: value[6],
                                    noise: value[7]
                                )
                            )
                        }
                    }
                    room -= sent
                }
                let reachesEnd = forwarded + sent >= committed
                let state: String = row["state"]
                let sendState = reachesEnd ? state : "running"
                // A run with packages still to send but no room left waits for the next batch.
                guard sent > 0 || (reachesEnd && sendState != (row["f_state"] as String?)) else { continue }
                batch.runs.append(
                    ForwardBatch.Run(
                        id: id,
                        uuid: row["uuid"],
                        device: row["device"],
                        deviceRun: row["device_run"],
                        title: row["title"],
                        state: sendState,
                        reason: reachesEnd ? row["reason"] : nil,
                        startedAt: row["started_at"],
                        endedAt: reachesEnd ? row["ended_at"] : nil,
                        overflowed: row["overflowed"],
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
                        rssi: row["rssi"],
                        cell: reachesEnd ? row["cell"] : nil,
                        foundAtConnect: row["found_at_connect"],
                        forwardedBefore: forwarded,
                        lastIndexBefore: lastIndex,
                        forwardedAfter: forwarded + sent,
                        lastIndexAfter: lastSent
                    )
                )
            }
            return batch.runs.isEmpty ? nil : batch
        }
    }

    /// Records that `sink` has committed `batch`: each run's position moves to its `…After`.
    public func confirmForwarded(sink: String, batch: ForwardBatch) throws(JournalError) {
        try writeJournal { db in
            let now = Date().timeIntervalSince1970
            for run in batch.runs {
                try Self.setPosition(
                    sink: sink,
                    run: run.id,
                    packages: run.forwardedAfter,
                    lastIndex: run.lastIndexAfter,
                    state: run.state,
                    at: now,
                    db
                )
            }
        }
    }

    /// Sets a run's position to what the sink says it holds (after a failure left it unsure whether
    /// its last batch was committed). `uuid` names the run.
    public func setForwardPosition(
        sink: String,
        run uuid: String,
        packages: Int,
        lastIndex: Int,
        state: String
    ) throws(JournalError) {
        try writeJournal { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE uuid = ?", arguments: [uuid]) else {
                return
            }
            try Self.setPosition(
                sink: sink,
                run: id,
                packages: packages,
                lastIndex: lastIndex,
                state: state,
                at: Date().timeIntervalSince1970,
                db
            )
        }
    }

    /// The UUIDs of runs `sink` has not wholly confirmed (the ones a resync asks the sink about).
    public func unconfirmedRuns(sink: String) throws(JournalError) -> [String] {
        try readJournal { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT r.uuid FROM runs r
                    LEFT JOIN forward_positions f ON f.sink = ? AND f.run_id = r.id
                    WHERE r.pruned_at IS NULL AND (f.run_id IS NULL OR f.packages < r.packages OR f.state != r.state)
                    ORDER BY r.id
                    """,
                arguments: [sink]
            )
        }
    }

    /// Committed packages `sink` has not confirmed, and the host time of the oldest.
    public func forwardLag(sink: String) throws(JournalError) -> ForwardLag {
        try readJournal { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.packages - COALESCE(f.packages, 0) AS waiting, COALESCE(f.last_idx, -1) AS last_idx
                    FROM runs r LEFT JOIN forward_positions f ON f.sink = ? AND f.run_id = r.id
                    WHERE r.pruned_at IS NULL AND r.packages > COALESCE(f.packages, 0)
                    """,
                arguments: [sink]
            )
            var lag = ForwardLag(packages: 0, oldestHostTime: nil)
            for row in rows {
                lag.packages += row["waiting"] as Int
                let oldest = try Double.fetchOne(
                    db,
                    sql: "SELECT host_time FROM packages WHERE run_id = ? AND idx > ? ORDER BY idx LIMIT 1",
                    arguments: [row["id"] as Int64, row["last_idx"] as Int]
                )
                if let oldest { lag.oldestHostTime = min(lag.oldestHostTime ?? oldest, oldest) }
            }
            return lag
        }
    }

    /// Deletes the packages of ended runs that `sink` holds in full, that ended before `endedBefore`
    /// (seconds since the epoch) and that have been analysed (the analysis reads the points); the runs keep their rows, marked `pruned_at`. One transaction per run,
    /// so the journal's writer never waits long. Returns the runs and packages pruned.
    public func prune(sink: String, endedBefore: Double) throws(JournalError) -> (runs: Int, packages: Int) {
        let candidates = try readJournal { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.packages FROM runs r
                    JOIN forward_positions f ON f.sink = ? AND f.run_id = r.id
                    WHERE r.state != 'running' AND r.pruned_at IS NULL AND f.packages >= r.packages
                        AND f.state = r.state AND r.ended_at < ?
                        AND r.id IN (SELECT run_id FROM run_analyses)
                    ORDER BY r.id
                    """,
                arguments: [sink, endedBefore]
            ).map { (id: $0[0] as Int64, packages: $0[1] as Int) }
        }
        var packages = 0
        for run in candidates {
            try writeJournal { db in
                try db.execute(sql: "DELETE FROM package_values WHERE run_id = ?", arguments: [run.id])
                try db.execute(sql: "DELETE FROM packages WHERE run_id = ?", arguments: [run.id])
                try db.execute(
                    sql: "UPDATE runs SET pruned_at = ? WHERE id = ?",
                    arguments: [Date().timeIntervalSince1970, run.id]
                )
            }
            packages += run.packages
        }
        return (candidates.count, packages)
    }

    private static func setPosition(
        sink: String,
        run: Int64,
        packages: Int,
        lastIndex: Int,
        state: String,
        at time: Double,
        _ db: Database
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO forward_positions (sink, run_id, packages, last_idx, state, forwarded_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (sink, run_id) DO UPDATE SET packages = excluded.packages,
                    last_idx = excluded.last_idx, state = excluded.state, forwarded_at = excluded.forwarded_at
                """,
            arguments: [sink, run, packages, lastIndex, state, time]
        )
    }
}
