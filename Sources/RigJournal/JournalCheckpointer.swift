import Coordination
import Foundation
import GRDBSQLite

/// Copies the journal's write-ahead log back into the database file on a thread of its own, through
/// a connection of its own (`PRAGMA wal_checkpoint(PASSIVE)`), so that the writer's commits never
/// carry a checkpoint: the writer turns SQLite's automatic checkpoints off and asks for one here
/// after every commit. A passive checkpoint never blocks the writer; what it could not copy yet is
/// copied by the next one. Run right after each commit, a checkpoint copies one commit's frames and is
/// usually done before the next commit begins, so the log restarts from its beginning and stays small.
final class JournalCheckpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var requested = false
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)
    private var connection: OpaquePointer?
    /// Guarded by `condition`: checkpoints run, and the last failure's message (checkpoints are
    /// retried; a journal whose WAL cannot be checkpointed only grows).
    private var runs = 0
    private var failure: String?

    var checkpoints: Int { locked { runs } }
    var lastFailure: String? { locked { failure } }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    init(path: String) {
        var handle: OpaquePointer?
        if sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK {
            connection = handle
            sqlite3_busy_timeout(handle, 1000)
            // A connection learns the file is in WAL mode only once it has read it: until then a
            // checkpoint is a no-op (it reports the log as -1 frames).
            if sqlite3_exec(handle, "SELECT count(*) FROM sqlite_master", nil, nil, nil) != SQLITE_OK {
                failure = String(cString: sqlite3_errmsg(handle))
            }
        } else {
            failure = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close(handle)
        }
        Threads.start(name: "journal-checkpt") { [self] in loop() }
    }

    /// Asks for a checkpoint soon (several requests before it starts make one checkpoint).
    func request() {
        condition.lock()
        requested = true
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread (after a checkpoint in progress) and closes the connection.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        stopped.wait()
    }

    private func loop() {
        while true {
            condition.lock()
            while !requested && !stopping { condition.wait() }
            let stop = stopping
            requested = false
            condition.unlock()
            if stop { break }
            guard let connection else { continue }
            let status = sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            condition.lock()
            runs += 1
            failure =
                status == SQLITE_OK || status == SQLITE_BUSY ? nil : String(cString: sqlite3_errmsg(connection))
            condition.unlock()
        }
        sqlite3_close(connection)
        stopped.signal()
    }
}
