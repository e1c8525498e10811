import GRDB
public import RigModel

extension Journal {
    /// The newest `perDevice` requests of each device that have ended (every request, once the journal
    /// is open: those a previous process left are closed then), oldest first: what a restarted rig keeps
    /// answering for, idempotency keys included.
    public func endedRequests(perDevice: Int) throws(JournalError) -> [RunRequest] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM (
                        SELECT *, ROW_NUMBER() OVER (PARTITION BY device ORDER BY submitted_at DESC, rowid DESC) AS newest
                        FROM run_requests WHERE state NOT IN ('queued', 'running')
                    ) WHERE newest <= ? ORDER BY submitted_at, rowid
                    """,
                arguments: [perDevice]
            ).compactMap(Self.request)
        }
    }

    /// A `run_requests` row as the request it records (nil for a state this version does not know).
    static func request(_ row: Row) -> RunRequest? {
        guard let state = RunRequest.State(rawValue: row["state"]) else { return nil }
        let script: String = row["script"]
        var request = RunRequest(
            id: row["id"],
            device: row["device"],
            title: row["title"],
            technique: row["technique"],
            script: script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
            priority: row["priority"],
            submittedAt: row["submitted_at"],
            submitter: row["submitter"],
            idempotencyKey: row["idempotency_key"]
        )
        request.state = state
        request.runID = row["run_uuid"]
        request.deviceRun = row["device_run"]
        request.reason = row["reason"]
        request.revision = row["revision"]
        return request
    }
}
