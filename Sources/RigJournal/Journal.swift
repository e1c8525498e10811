import Foundation
import GRDB
import MethodSCRIPT
import PicoLink

/// A rig's journal: one SQLite file in WAL mode, the single source of truth of what a rig measured.
///
/// ```swift
/// let journal = try Journal.open(path: "/var/lib/hcipico/rig.sqlite", rig: "bench-3")
/// print(journal.recovered)                 // runs a previous crash left `running`, now closed
/// let writer = journal.writer()            // group commit, ≤ 100 ms apart
/// ```
///
/// `synchronous = FULL`: a commit has reached the disk when it returns, so a power cut loses nothing
/// that was committed; WAL keeps readers (`runs`, `export`, the status page) off the writer's way.
public final class Journal: Sendable {
    public let path: String
    /// Runs that a previous process left `running` (killed, power cut) and that opening closed as
    /// `incomplete` with the reason "rig restarted".
    public let recovered: [RunSummary]
    /// Runs whose numbers opening changed, so that each device's run numbers are unique (a journal
    /// written before they were: see `JournalSchema`); empty on every later open.
    public let renumbered: [JournalRenumbering]
    let database: DatabasePool

    private init(
        path: String,
        database: DatabasePool,
        recovered: [RunSummary],
        renumbered: [JournalRenumbering] = []
    ) {
        self.path = path
        self.database = database
        self.renumbered = renumbered
        self.recovered = recovered
    }

    /// Opens (or creates) the journal for writing: migrates the schema, checks the file
    /// (`PRAGMA quick_check`), records the rig's name and closes runs left `running`.
    public static func open(path: String, rig: String) throws(JournalError) -> Journal {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let database: DatabasePool
        let renumbering = RenumberingLog()
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            try JournalSchema.migrator(renumbered: renumbering).migrate(database)
        } catch {
            throw .cannotOpen(path: path, message: Self.message(error))
        }
        do {
            let check = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else { throw JournalError.damaged(path: path, report: check.joined(separator: "; ")) }
            let recovered = try database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO rig (id, name, created_at) VALUES (1, ?, ?)
                        ON CONFLICT (id) DO UPDATE SET name = excluded.name
                        """,
                    arguments: [rig, Date().timeIntervalSince1970]
                )
                // The variable types' names and units as this build knows them (as the forwarder does
                // in PostgreSQL): a name the Specs changed reaches the samples view of older journals.
                let upsert = try db.makeStatement(
                    sql: """
                        INSERT INTO variable_types (code, quantity, unit) VALUES (?, ?, ?)
                        ON CONFLICT (code) DO UPDATE SET quantity = excluded.quantity, unit = excluded.unit
                        """
                )
                for info in VariableType.known.compactMap(\.info) {
                    try upsert.execute(arguments: [info.code, info.name, info.unit])
                }
                let range = try db.makeStatement(
                    sql: """
                        INSERT INTO current_ranges (idx, full_scale, label) VALUES (?, ?, ?)
                        ON CONFLICT (idx) DO UPDATE SET full_scale = excluded.full_scale, label = excluded.label
                        """
                )
                for (index, info) in MeasurementRange.picoCurrentRanges {
                    try range.execute(arguments: [Int(index), info.fullScale, info.label])
                }
                let left = try Int64.fetchAll(db, sql: "SELECT id FROM runs WHERE state = 'running'")
                try db.execute(
                    sql: """
                        UPDATE runs SET state = 'incomplete', reason = 'rig restarted',
                            cell = 'cell state unknown: the rig ended without closing this run (killed, or the '
                                || 'host lost power); the next connection to the device stops its script and '
                                || 'switches the cell off',
                            packages = (SELECT COUNT(*) FROM packages WHERE run_id = runs.id),
                            ended_at = COALESCE((SELECT MAX(host_time) FROM packages WHERE run_id = runs.id), started_at)
                        WHERE state = 'running'
                        """
                )
                _ = try JournalStatements.closeLeftoverRequests(db)
                return try left.isEmpty ? [] : JournalQueries.runs(RunFilter(ids: left), db)
            }
            return Journal(path: path, database: database, recovered: recovered, renumbered: renumbering.all)
        } catch let error as JournalError {
            throw error
        } catch {
            throw .cannotOpen(path: path, message: Self.message(error))
        }
    }

    /// Opens an existing journal to read it (`runs`, `export`), alongside a rig that may be writing.
    public static func openForReading(path: String) throws(JournalError) -> Journal {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, message: "no such file")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        do {
            let database = try DatabasePool(path: path, configuration: configuration)
            // A journal its rig has not migrated yet reads as well: every version keeps the columns read.
            let migrated = try database.read { db in try !JournalSchema.migrator().appliedIdentifiers(db).isEmpty }
            guard migrated else { throw JournalError.cannotOpen(path: path, message: "not an hcipico journal") }
            return Journal(path: path, database: database, recovered: [])
        } catch let error as JournalError {
            throw error
        } catch {
            throw .cannotOpen(path: path, message: Self.message(error))
        }
    }

    /// The writer (one per journal and process).
    public func writer(commitInterval: Double = 0.1, pendingLimit: Int = 100_000) -> JournalWriter {
        JournalWriter(database: database, commitInterval: commitInterval, pendingLimit: pendingLimit)
    }

    /// Runs matching `filter`, oldest first.
    public func runs(_ filter: RunFilter = RunFilter()) throws(JournalError) -> [RunSummary] {
        try read { db in try JournalQueries.runs(filter, db) }
    }

    /// A run's provenance.
    public func provenance(of run: Int64) throws(JournalError) -> RunProvenance {
        try read { db in try JournalQueries.provenance(run, db) }
    }

    /// Calls `body` with every package of a run, in order. An error `body` throws ends the walk and
    /// is rethrown as it is; the journal's own failures are `JournalError`s.
    public func forEachPackage(of run: Int64, _ body: (PicoPackage) throws -> Void) throws {
        var bodyError: (any Error)?
        do {
            try read { db in
                try JournalQueries.forEachPackage(run, db) { package in
                    do { try body(package) } catch {
                        bodyError = error
                        throw CancellationError()
                    }
                }
            }
        } catch {
            throw bodyError ?? error
        }
    }

    /// The packages of a run after index `after` (at most `limit`), in order: what the status page's
    /// live plot has not shown yet. Only committed packages are ever read.
    public func packages(of run: Int64, after index: Int, limit: Int) throws(JournalError) -> [PicoPackage] {
        try read { db in
            var packages: [PicoPackage] = []
            try JournalQueries.forEachPackage(run, after: index, limit: limit, db) { packages.append($0) }
            return packages
        }
    }

    /// The journal's row id of the run with `uuid` (nil until its start is committed).
    public func runID(uuid: String) throws(JournalError) -> Int64? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT id FROM runs WHERE uuid = ?", arguments: [uuid]) }
    }

    /// The newest run of `device` (nil when it has none).
    public func latestRun(device: String) throws(JournalError) -> RunSummary? {
        try read { db in
            guard
                let id = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT r.id FROM runs r JOIN devices d ON d.id = r.device_id
                        WHERE d.name = ? ORDER BY r.started_at DESC, r.id DESC LIMIT 1
                        """,
                    arguments: [device]
                )
            else { return nil }
            return try JournalQueries.runs(RunFilter(ids: [id]), db).first
        }
    }

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file.
    public func integrityCheck() throws(JournalError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// The file's size in bytes, WAL included.
    public var sizeInBytes: Int {
        [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(JournalError) -> T {
        do {
            return try database.read(body)
        } catch let error as JournalError {
            throw error
        } catch {
            throw .readFailed(Self.message(error))
        }
    }

    /// A read for the journal's extensions (forwarding, the status page).
    func readJournal<T>(_ body: (Database) throws -> T) throws(JournalError) -> T { try read(body) }

    /// A write transaction outside the writer's group commits (forward positions, pruning): GRDB
    /// serializes it with the writer's transactions.
    func writeJournal<T>(_ body: (Database) throws -> T) throws(JournalError) -> T {
        do {
            return try database.write(body)
        } catch let error as JournalError {
            throw error
        } catch {
            throw .writeFailed(Self.message(error))
        }
    }

    static func message(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }
}
