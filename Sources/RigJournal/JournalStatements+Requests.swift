import GRDB
import RigModel

extension JournalStatements {
    /// Writes `request` as it now stands, unless a newer revision of it is there already.
    static func upsertRequest(_ request: RunRequest, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO run_requests (id, device, state, submitter, submitted_at, priority, title, technique,
                    script, idempotency_key, run_uuid, device_run, reason, revision)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET state = excluded.state, run_uuid = excluded.run_uuid,
                    device_run = excluded.device_run, reason = excluded.reason, revision = excluded.revision
                WHERE excluded.revision > run_requests.revision
                """,
            arguments: [
                request.id, request.device, request.state.rawValue, request.submitter, request.submittedAt,
                request.priority, request.title, request.technique, request.script.joined(separator: "\n"),
                request.idempotencyKey, request.runID, request.deviceRun, request.reason, request.revision,
            ]
        )
    }

    static func insertControlAction(_ action: ControlAction, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO control_actions (time, actor, action, device, request_id, detail)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [action.time, action.actor, action.action, action.device, action.requestID, action.detail]
        )
    }

    /// Requests an earlier process left queued or running (killed, or the host lost power): ended as
    /// cancelled, or as their run ended; returns how many.
    static func closeLeftoverRequests(_ db: Database) throws -> Int {
        try db.execute(
            sql: """
                UPDATE run_requests SET state = 'cancelled', revision = revision + 1,
                    reason = 'the rig ended before it ran (killed, or the host lost power)'
                WHERE state = 'queued' OR (state = 'running' AND run_uuid IS NULL)
                """
        )
        var changed = db.changesCount
        try db.execute(
            sql: """
                UPDATE run_requests SET revision = revision + 1,
                    state = COALESCE((SELECT state FROM runs WHERE runs.uuid = run_requests.run_uuid), 'incomplete'),
                    reason = COALESCE((SELECT reason FROM runs WHERE runs.uuid = run_requests.run_uuid), 'rig restarted')
                WHERE state = 'running'
                """
        )
        changed += db.changesCount
        return changed
    }
}
