/// Why the journal could not open, write or read. A write failure is final for a writer: nothing
/// appended after it counts as recorded.
public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or is not a journal (path, SQLite's message).
    case cannotOpen(path: String, message: String)
    /// `PRAGMA integrity_check` found damage.
    case damaged(path: String, report: String)
    /// A transaction failed (disk full, I/O error); what it held was not committed.
    case writeFailed(String)
    /// The writer was closed before the operation.
    case closed
    /// A run the journal does not know.
    case unknownRun(String)
    /// A query failed.
    case readFailed(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let message): "\(path): cannot open the journal: \(message)"
        case .damaged(let path, let report): "\(path): the journal is damaged: \(report)"
        case .writeFailed(let message): "journal write failed: \(message)"
        case .closed: "the journal writer is closed"
        case .unknownRun(let run): "no run \(run) in the journal"
        case .readFailed(let message): "journal read failed: \(message)"
        }
    }
}
