import Foundation
import PicoLink
import RigModel
import RunResults

/// One change the writer applies, in the order it was appended.
///
/// The large, rare operations are boxed (`indirect`), so that the pending queue's elements are as small as
/// a package's: every package is copied into it and out of it.
enum JournalOperation: Sendable {
    indirect case runStarted(RunProvenance)
    case package(run: UUID, PicoPackage)
    case runEnded(run: UUID, JournalRunEnd)
    /// A run's analysis (its `run` field is replaced by the run's row), stored after its end.
    indirect case analysis(run: UUID, StoredAnalysis, json: String?)
    /// A run request as it now stands (an older revision never replaces a newer one).
    indirect case request(RunRequest)
    case controlAction(ControlAction)
}

/// How a run ended, as the journal keeps it.
public struct JournalRunEnd: Sendable, Equatable {
    /// True when the device ended the script by itself without an error.
    public var complete: Bool
    /// Why an incomplete run ended (`stopped`, `connection lost: …`, `device error !4004 …`).
    public var reason: String?
    /// Seconds since the Unix epoch.
    public var time: Double
    /// Packages the device sent that never reached the journal because a bounded buffer overflowed.
    public var overflowed: Int
    /// What became of the cell after a run that did not end normally (`CellOutcome`'s words).
    public var cell: String?

    public init(complete: Bool, reason: String?, time: Double, overflowed: Int = 0, cell: String? = nil) {
        self.complete = complete
        self.reason = reason
        self.time = time
        self.overflowed = overflowed
        self.cell = cell
    }
}

/// What one commit held, for metrics and for whoever waits on "committed up to N".
public struct JournalCommit: Sendable {
    /// Every operation appended with a sequence number up to this one is committed.
    public var sequence: UInt64
    public var packages: Int
    public var values: Int
    /// Seconds the transaction took, from BEGIN to the end of COMMIT.
    public var duration: Double
    /// The host receive time of the oldest package in it (to measure notification → committed).
    public var oldestHostTime: Double?
    /// When COMMIT returned, seconds since the Unix epoch.
    public var committedAt: Double
    /// The packages committed, in order, each with its run's row: what a reader of the journal now
    /// finds, for a follower that would otherwise read them back. Made when asked for, from the
    /// commit's operations: the commit thread keeps no list of its own.
    public var runPackages: [RunPackage] {
        get {
            if let given { return given }
            return operations.compactMap { operation in
                guard case .package(let run, let package) = operation, let row = runRows[run] else { return nil }
                return RunPackage(run: row, package: package)
            }
        }
        set { given = newValue }
    }
    /// The operations committed, and the rows of the runs their packages belong to.
    var operations: [JournalOperation] = []
    var runRows: [UUID: Int64] = [:]
    var given: [RunPackage]?
    /// The rows of the runs whose end this commit holds.
    public var endedRuns: [Int64] = []

    /// A committed package and its run's row.
    public struct RunPackage: Sendable {
        public var run: Int64
        public var package: PicoPackage
    }
}
