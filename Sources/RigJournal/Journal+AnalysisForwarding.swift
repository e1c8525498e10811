import Foundation
import GRDB
public import RunResults

/// One run's analysis for a sink: the run's UUID and the analysis as the journal keeps it.
public struct ForwardedAnalysis: Sendable, Equatable {
    /// The run's UUID (the sink's key, with the rig's name).
    public var uuid: String
    /// The analysis.
    public var analysis: StoredAnalysis
}

/// The analyses a sink has not confirmed: a run's analysis is sent once the sink holds the run (its
/// row exists there), and again if the run is analysed again. Positions are kept in
/// `forward_positions` under the sink's name with `/analysis` after it, the analysis's time as state.
extension Journal {
    /// The analyses, at most `limit`, of runs `sink` already holds, that `sink` has not confirmed.
    public func analysesToForward(sink: String, limit: Int) throws(JournalError) -> [ForwardedAnalysis] {
        let ids = try readJournal { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT a.run_id, r.uuid FROM run_analyses a JOIN runs r ON r.id = a.run_id
                    JOIN forward_positions f ON f.sink = ? AND f.run_id = a.run_id
                    LEFT JOIN forward_positions g ON g.sink = ? AND g.run_id = a.run_id
                    WHERE g.run_id IS NULL OR g.state != CAST(a.analysed_at AS TEXT)
                    ORDER BY a.run_id LIMIT ?
                    """,
                arguments: [sink, sink + "/analysis", max(1, limit)]
            ).map { (id: $0[0] as Int64, uuid: $0[1] as String) }
        }
        var found: [ForwardedAnalysis] = []
        for run in ids {
            if let stored = try analysis(of: run.id) {
                found.append(ForwardedAnalysis(uuid: run.uuid, analysis: stored))
            }
        }
        return found
    }

    /// Records that `sink` has committed `analyses`.
    public func confirmForwarded(sink: String, analyses: [ForwardedAnalysis]) throws(JournalError) {
        try writeJournal { db in
            for forwarded in analyses {
                try db.execute(
                    sql: """
                        INSERT INTO forward_positions (sink, run_id, packages, last_idx, state, forwarded_at)
                        VALUES (?, ?, 0, -1, CAST(? AS TEXT), ?)
                        ON CONFLICT (sink, run_id) DO UPDATE SET state = excluded.state,
                            forwarded_at = excluded.forwarded_at
                        """,
                    arguments: [
                        sink + "/analysis", forwarded.analysis.run, forwarded.analysis.analysedAt,
                        Date().timeIntervalSince1970,
                    ]
                )
            }
        }
    }
}
