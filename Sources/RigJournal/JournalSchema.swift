import Foundation
import GRDB
import MethodSCRIPT

/// The journal's tables, created and migrated in versions (GRDB's `DatabaseMigrator` records which
/// ran in `grdb_migrations`). A migration, once released, never changes: a new version adds one.
///
/// - `rig`: one row, the rig's name and when the journal was made.
/// - `devices`: every device the rig has run, by its name in the config.
/// - `runs`: one row per run, with its `state` (`running`, `complete`, `incomplete`), the `reason`
///   an incomplete run ended, and its provenance (address, firmware, serial number, the script and
///   its SHA-256, the link, the tool version, RSSI). `packages` counts the committed packages.
/// - `packages`: one row per data package: its index in the run, measurement loop, scan, host time
///   and device time (from an `eb` value, when the script sends one).
/// - `package_values`: one row per value: the variable type (`ba`), the script's name for it (`c`),
///   the value in SI base units (NULL for the device's `nan`), status bits, current range index, noise.
/// - `variable_types`: the MethodSCRIPT table of variable types (quantity and unit).
/// - `samples`: a view joining them, one row per value, for SQL users and Grafana.
///
/// Version 2 (forwarding):
/// - `forward_positions`: per sink (`postgres`) and run, how far the run has been forwarded (`packages`
///   sent, the last package index `last_idx`, and the run `state` the sink has), as the sink confirmed it.
/// - `runs.pruned_at`: when the run's packages were pruned after being forwarded (NULL: never).
///
/// Version 4: loops and scans numbered from 1, as in every output; `samples` gains `device_run`,
/// shows a package outside any `nscans` loop as scan 1, and turns the current range index into its
/// full scale in amperes and its label (`current_ranges`: the EmStat Pico's table, from the Specs).
///
/// Version 5 (cell safety): `runs.cell` says what became of the cell after a run that did not end
/// normally (`cell off confirmed at …`, `cell state unknown: …`); `runs.found_at_connect` what the run's
/// connection found first when the device was still running an earlier script.
///
/// Version 6 (analysis): `run_analyses`, `peaks`, `circuit_fits`, `fit_parameters` (see `version6`).
///
/// Version 7 (a rig that takes orders): `run_requests`, `control_actions` (see `version7`).
///
/// Version 3 (unique run numbers): a device's `device_run` is unique within the journal (an index
/// enforces it). Journals from before, where a rig restart or a reload began each device's count at 1
/// again, have their runs renumbered 1, 2, 3… per device in the order they were recorded; each change
/// is kept in `run_renumbering` (run, old and new number, when) and reported by `Journal.open`.
enum JournalSchema {
    /// The migrator; `renumbered` collects the runs version 3 renumbers while it runs.
    static func migrator(renumbered: RenumberingLog = RenumberingLog()) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: rig, devices, runs, packages, values, samples") { db in
            try db.execute(sql: version1)
            let insert = try db.makeStatement(
                sql: "INSERT INTO variable_types (code, quantity, unit) VALUES (?, ?, ?)"
            )
            for info in VariableType.known.compactMap(\.info) {
                try insert.execute(arguments: [info.code, info.name, info.unit])
            }
        }
        migrator.registerMigration("v2: forward positions, pruning") { db in
            try db.execute(sql: version2)
        }
        migrator.registerMigration("v3: unique run numbers per device") { db in
            try renumberRuns(db, log: renumbered)
            try db.execute(sql: "CREATE UNIQUE INDEX runs_by_device_run ON runs (device_id, device_run)")
        }
        migrator.registerMigration("v4: loops and scans from 1") { db in
            try db.execute(sql: version4)
        }
        migrator.registerMigration("v5: the cell after a run, a script found at connect") { db in
            try db.execute(sql: "ALTER TABLE runs ADD COLUMN cell TEXT")
            try db.execute(sql: "ALTER TABLE runs ADD COLUMN found_at_connect TEXT")
        }
        migrator.registerMigration("v6: analyses, peaks, circuit fits") { db in
            try db.execute(sql: version6)
        }
        migrator.registerMigration("v7: run requests, control actions") { db in
            try db.execute(sql: version7)
        }
        return migrator
    }

    /// `run_requests`: every run asked of a device, on demand or by its schedule, as it last stood: its
    /// `state` (`queued`, `running`, `complete`, `incomplete`, `cancelled`), who asked (`submitter`), its
    /// priority, title, technique and script, the idempotency key, the run it became (`run_uuid`, the
    /// runs table's `uuid`) and why it ended; `revision` orders its records. `control_actions`: one row
    /// per control action (who, what, which device and request, when).
    static let version7 = """
        CREATE TABLE run_requests (
            id TEXT PRIMARY KEY,
            device TEXT NOT NULL,
            state TEXT NOT NULL,
            submitter TEXT NOT NULL,
            submitted_at REAL NOT NULL,
            priority INTEGER NOT NULL,
            title TEXT NOT NULL,
            technique TEXT,
            script TEXT NOT NULL,
            idempotency_key TEXT,
            run_uuid TEXT,
            device_run INTEGER,
            reason TEXT,
            revision INTEGER NOT NULL
        );
        CREATE INDEX run_requests_by_device ON run_requests (device, submitted_at);
        CREATE TABLE control_actions (
            id INTEGER PRIMARY KEY,
            time REAL NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            device TEXT NOT NULL,
            request_id TEXT,
            detail TEXT NOT NULL
        );
        """

    /// Each ended run's analysis (`JournalAnalyser`): `run_analyses` one row per run analysed, its
    /// `kind` (`peaks`, `fit`, `none`), the results as JSON (`RunAnalysis`) and, for `none`, why; the
    /// same results as rows for SQL: `peaks` keyed by run, current column, scan and order, `circuit_fits`
    /// one row per fitted (or failed) run, `fit_parameters` one row per parameter.
    private static let version6 = """
        CREATE TABLE run_analyses (
            run_id INTEGER PRIMARY KEY REFERENCES runs (id),
            analysed_at REAL NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('peaks', 'fit', 'none')),
            results TEXT,
            note TEXT
        );
        CREATE TABLE peaks (
            run_id INTEGER NOT NULL REFERENCES runs (id),
            curve TEXT NOT NULL,
            scan INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            sweep INTEGER NOT NULL,
            direction TEXT NOT NULL,
            potential REAL NOT NULL,
            peak_current REAL NOT NULL,
            baseline_current REAL,
            height REAL,
            prominence REAL,
            width REAL,
            area REAL,
            charge REAL,
            left_foot REAL,
            right_foot REAL,
            PRIMARY KEY (run_id, curve, scan, seq)
        ) WITHOUT ROWID;
        CREATE TABLE circuit_fits (
            run_id INTEGER PRIMARY KEY REFERENCES runs (id),
            circuit TEXT NOT NULL,
            weighting TEXT,
            converged INTEGER NOT NULL,
            iterations INTEGER,
            chi_squared REAL,
            reduced_chi_squared REAL,
            failure TEXT
        );
        CREATE TABLE fit_parameters (
            run_id INTEGER NOT NULL REFERENCES runs (id),
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            unit TEXT NOT NULL,
            value REAL NOT NULL,
            std_error REAL,
            PRIMARY KEY (run_id, position)
        ) WITHOUT ROWID;
        """

    /// Numbers every device's runs 1, 2, 3… by their row order where they are not so already, records
    /// each change in `run_renumbering`, and has the forwarder send those runs' rows again (their
    /// forward position's state no longer matches), so that PostgreSQL gets the new numbers too.
    private static func renumberRuns(_ db: Database, log: RenumberingLog) throws {
        try db.execute(
            sql: """
                CREATE TABLE run_renumbering (
                    run_id INTEGER NOT NULL REFERENCES runs (id),
                    old_device_run INTEGER NOT NULL,
                    new_device_run INTEGER NOT NULL,
                    renumbered_at REAL NOT NULL
                )
                """
        )
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT r.id, d.name, r.device_run,
                    ROW_NUMBER() OVER (PARTITION BY r.device_id ORDER BY r.id) AS wanted
                FROM runs r JOIN devices d ON d.id = r.device_id ORDER BY r.id
                """
        )
        let now = Date().timeIntervalSince1970
        for row in rows {
            let id: Int64 = row[0]
            let old: Int = row[2]
            let wanted: Int = row[3]
            guard old != wanted else { continue }
            try db.execute(sql: "UPDATE runs SET device_run = ? WHERE id = ?", arguments: [wanted, id])
            try db.execute(
                sql: "INSERT INTO run_renumbering VALUES (?, ?, ?, ?)",
                arguments: [id, old, wanted, now]
            )
            try db.execute(
                sql: "UPDATE forward_positions SET state = 'renumbered' WHERE run_id = ?",
                arguments: [id]
            )
            log.append(JournalRenumbering(run: id, device: row[1], oldNumber: old, newNumber: wanted))
        }
    }

    /// Loops and scans were stored from 0 (scans NULL outside an `nscans` loop), while the files
    /// numbered them from 1: stored from 1 now, and the view shows a package outside scans as scan 1,
    /// as every output does. The forwarder's positions are kept: PostgreSQL's own version 2 does the same.
    private static let version4 = """
        UPDATE packages SET loop = loop + 1, scan = scan + 1;
        CREATE TABLE current_ranges (
            idx INTEGER PRIMARY KEY,
            full_scale REAL NOT NULL,
            label TEXT NOT NULL
        );
        DROP VIEW samples;
        CREATE VIEW samples AS
            SELECT r.uuid AS run_uuid, r.id AS run_id, d.name AS device, r.device_run AS device_run,
                   r.title AS title, p.idx AS package, p.loop AS loop, COALESCE(p.scan, 1) AS scan,
                   p.host_time AS host_time, p.device_time AS device_time,
                   v.position AS position, v.variable AS variable, v.name AS name,
                   t.quantity AS quantity, v.value AS value, t.unit AS unit,
                   v.status AS status, v.current_range AS current_range,
                   c.full_scale AS current_range_full_scale, c.label AS current_range_label, v.noise AS noise
            FROM package_values v
            JOIN packages p ON p.run_id = v.run_id AND p.idx = v.idx
            JOIN runs r ON r.id = v.run_id
            JOIN devices d ON d.id = r.device_id
            LEFT JOIN variable_types t ON t.code = v.variable
            LEFT JOIN current_ranges c ON c.idx = v.current_range;
        """

    private static let version2 = """
        CREATE TABLE forward_positions (
            sink TEXT NOT NULL,
            run_id INTEGER NOT NULL REFERENCES runs (id),
            packages INTEGER NOT NULL,
            last_idx INTEGER NOT NULL,
            state TEXT NOT NULL,
            forwarded_at REAL NOT NULL,
            PRIMARY KEY (sink, run_id)
        ) WITHOUT ROWID;
        ALTER TABLE runs ADD COLUMN pruned_at REAL;
        """

    private static let version1 = """
        CREATE TABLE rig (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            name TEXT NOT NULL,
            created_at REAL NOT NULL
        );
        CREATE TABLE devices (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE
        );
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            uuid TEXT NOT NULL UNIQUE,
            device_id INTEGER NOT NULL REFERENCES devices (id),
            device_run INTEGER NOT NULL,
            title TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('running', 'complete', 'incomplete')),
            reason TEXT,
            started_at REAL NOT NULL,
            ended_at REAL,
            packages INTEGER NOT NULL DEFAULT 0,
            overflowed INTEGER NOT NULL DEFAULT 0,
            address TEXT,
            address_type TEXT,
            transport TEXT NOT NULL,
            firmware TEXT,
            serial_number TEXT,
            script_name TEXT NOT NULL,
            script TEXT NOT NULL,
            script_sha256 TEXT NOT NULL,
            link TEXT,
            tool_version TEXT NOT NULL,
            rssi INTEGER
        );
        CREATE INDEX runs_by_device ON runs (device_id, started_at);
        CREATE INDEX runs_by_state ON runs (state);
        CREATE TABLE packages (
            run_id INTEGER NOT NULL REFERENCES runs (id),
            idx INTEGER NOT NULL,
            loop INTEGER NOT NULL,
            scan INTEGER,
            host_time REAL NOT NULL,
            device_time REAL,
            PRIMARY KEY (run_id, idx)
        ) WITHOUT ROWID;
        CREATE TABLE package_values (
            run_id INTEGER NOT NULL,
            idx INTEGER NOT NULL,
            position INTEGER NOT NULL,
            variable TEXT NOT NULL,
            name TEXT,
            value REAL,
            status INTEGER,
            current_range INTEGER,
            noise INTEGER,
            PRIMARY KEY (run_id, idx, position)
        ) WITHOUT ROWID;
        CREATE TABLE variable_types (
            code TEXT PRIMARY KEY,
            quantity TEXT NOT NULL,
            unit TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE VIEW samples AS
            SELECT r.uuid AS run_uuid, r.id AS run_id, d.name AS device, r.title AS title,
                   p.idx AS package, p.loop AS loop, p.scan AS scan,
                   p.host_time AS host_time, p.device_time AS device_time,
                   v.position AS position, v.variable AS variable, v.name AS name,
                   t.quantity AS quantity, v.value AS value, t.unit AS unit,
                   v.status AS status, v.current_range AS current_range, v.noise AS noise
            FROM package_values v
            JOIN packages p ON p.run_id = v.run_id AND p.idx = v.idx
            JOIN runs r ON r.id = v.run_id
            JOIN devices d ON d.id = r.device_id
            LEFT JOIN variable_types t ON t.code = v.variable;
        """
}
