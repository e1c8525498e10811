import Synchronization

/// A run whose number the journal's version 3 migration changed, so that each device's run numbers
/// are unique (`Journal.renumbered`).
public struct JournalRenumbering: Sendable, Equatable, CustomStringConvertible {
    /// The run's row id.
    public var run: Int64
    public var device: String
    public var oldNumber: Int
    public var newNumber: Int

    public var description: String { "\(device) run \(oldNumber) (row \(run)) is now run \(newNumber)" }
}

/// Collects what a migration renumbered while it runs (on GRDB's writer).
final class RenumberingLog: Sendable {
    private let entries = Mutex<[JournalRenumbering]>([])

    func append(_ entry: JournalRenumbering) { entries.withLock { $0.append(entry) } }

    var all: [JournalRenumbering] { entries.withLock { $0 } }
}
