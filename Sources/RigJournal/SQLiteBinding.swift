import GRDB
import GRDBSQLite

/// Values bound to a prepared statement and a step through SQLite's C API, for the journal's hot paths
/// (`JournalBulkInsert`, the writer's storing of analyses), where GRDB's arguments would cost more than
/// the insert.
enum SQLiteBinding {
    /// SQLite copies bound text at once (`SQLITE_TRANSIENT`).
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ statement: SQLiteStatement, _ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    static func bind(_ statement: SQLiteStatement, _ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    static func bind(_ statement: SQLiteStatement, _ index: Int32, _ value: String?) {
        if let value {
            sqlite3_bind_text(statement, index, value, -1, transient)
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    /// Steps `statement` to its end (an insert or a delete) and resets it; SQLite's error as GRDB's.
    static func step(_ statement: SQLiteStatement, _ db: Database) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(db.sqliteConnection))
            )
        }
    }
}
