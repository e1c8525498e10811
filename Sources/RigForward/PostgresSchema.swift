import Logging
import MethodSCRIPT
import PostgresNIO

/// The fleet database's schema, `hcipico`, created and migrated by the forwarder in numbered versions
/// recorded in `hcipico.schema_migrations`. A released version never changes; a new one is appended.
/// Rigs that connect at once take an advisory lock, so each version runs exactly once.
///
/// - `runs`: one row per run and rig, with the journal's provenance (from version 3 `cell`, what became
///   of the cell after a run that did not end normally, and `found_at_connect`); `packages` and `last_idx` say how
///   far the run has been forwarded (the forwarder's position, committed with the packages).
/// - `packages`: one row per data package, keyed by (rig, run, package index).
/// - `package_values`: one row per value, in SI base units (NULL for the device's NaN).
/// - `variable_types`: MethodSCRIPT's variable types (quantity, unit).
/// - `samples`: a view with one row per value and its time, device and quantity, for Grafana and SQL.
/// - From version 4, each run's analysis (`PostgresAnalyses`): `run_analyses` (the results as `jsonb`),
///   `peaks`, `circuit_fits` and `fit_parameters`, keyed by rig and run UUID as the journal's tables are
///   by run.
enum PostgresSchema {
    struct Migration {
        var version: Int
        var name: String
        var statements: [String]
    }

    static let migrations: [Migration] = [
        Migration(
            version: 1,
            name: "runs, packages, values, samples",
            statements: [
                """
                CREATE TABLE hcipico.runs (
                    rig text NOT NULL,
                    run_uuid uuid NOT NULL,
                    journal_run_id bigint NOT NULL,
                    device text NOT NULL,
                    device_run integer NOT NULL,
                    title text NOT NULL,
                    state text NOT NULL CHECK (state IN ('running', 'complete', 'incomplete')),
                    reason text,
                    started_at timestamptz NOT NULL,
                    ended_at timestamptz,
                    packages integer NOT NULL DEFAULT 0,
                    last_idx integer NOT NULL DEFAULT -1,
                    overflowed integer NOT NULL DEFAULT 0,
                    address text,
                    address_type text,
                    transport text NOT NULL,
                    firmware text,
                    serial_number text,
                    script_name text NOT NULL,
                    script text NOT NULL,
                    script_sha256 text NOT NULL,
                    link text,
                    tool_version text NOT NULL,
                    rssi integer,
                    PRIMARY KEY (rig, run_uuid)
                )
                """,
                "CREATE INDEX runs_by_device ON hcipico.runs (rig, device, started_at)",
                """
                CREATE TABLE hcipico.packages (
                    rig text NOT NULL,
                    run_uuid uuid NOT NULL,
                    idx integer NOT NULL,
                    loop integer NOT NULL,
                    scan integer,
                    host_time timestamptz NOT NULL,
                    device_time double precision,
                    PRIMARY KEY (rig, run_uuid, idx)
                )
                """,
                "CREATE INDEX packages_by_time ON hcipico.packages (host_time)",
                """
                CREATE TABLE hcipico.package_values (
                    rig text NOT NULL,
                    run_uuid uuid NOT NULL,
                    idx integer NOT NULL,
                    position smallint NOT NULL,
                    variable text NOT NULL,
                    name text,
                    value double precision,
                    status integer,
                    current_range integer,
                    noise integer,
                    PRIMARY KEY (rig, run_uuid, idx, position)
                )
                """,
                """
                CREATE TABLE hcipico.variable_types (
                    code text PRIMARY KEY,
                    quantity text NOT NULL,
                    unit text NOT NULL
                )
                """,
                """
                CREATE VIEW hcipico.samples AS
                    SELECT p.host_time AS time, r.rig, r.device, r.run_uuid, r.title, r.device_run,
                           p.idx AS package, p.loop, p.scan, p.device_time,
                           v.position, v.variable, v.name, t.quantity, v.value, t.unit,
                           v.status, v.current_range, v.noise
                    FROM hcipico.package_values v
                    JOIN hcipico.packages p ON p.rig = v.rig AND p.run_uuid = v.run_uuid AND p.idx = v.idx
                    JOIN hcipico.runs r ON r.rig = v.rig AND r.run_uuid = v.run_uuid
                    LEFT JOIN hcipico.variable_types t ON t.code = v.variable
                """,
            ]
        ),
        Migration(
            version: 2,
            name: "loops and scans from 1",
            statements: [
                // Stored from 0 before (scans NULL outside an nscans loop) while the files numbered them
                // from 1; the journal's version 4 does the same, so new rows come from 1 as well.
                "UPDATE hcipico.packages SET loop = loop + 1, scan = scan + 1",
                // The current range index → its full scale in amperes and its label (EmStat Pico).
                """
                CREATE TABLE hcipico.current_ranges (
                    idx integer PRIMARY KEY,
                    full_scale_amperes double precision NOT NULL,
                    label text NOT NULL
                )
                """,
                "DROP VIEW hcipico.samples",
                """
                CREATE VIEW hcipico.samples AS
                    SELECT p.host_time AS time, r.rig, r.device, r.run_uuid, r.title, r.device_run,
                           p.idx AS package, p.loop, COALESCE(p.scan, 1) AS scan, p.device_time,
                           v.position, v.variable, v.name, t.quantity, v.value, t.unit,
                           v.status, v.current_range, c.full_scale_amperes AS current_range_amperes,
                           c.label AS current_range_label, v.noise
                    FROM hcipico.package_values v
                    JOIN hcipico.packages p ON p.rig = v.rig AND p.run_uuid = v.run_uuid AND p.idx = v.idx
                    JOIN hcipico.runs r ON r.rig = v.rig AND r.run_uuid = v.run_uuid
                    LEFT JOIN hcipico.variable_types t ON t.code = v.variable
                    LEFT JOIN hcipico.current_ranges c ON c.idx = v.current_range
                """,
            ]
        ),
        Migration(
            version: 3,
            name: "the cell after a run, a script found at connect",
            statements: [
                "ALTER TABLE hcipico.runs ADD COLUMN cell text",
                "ALTER TABLE hcipico.runs ADD COLUMN found_at_connect text",
            ]
        ),
        PostgresAnalyses.migration,
    ]

    /// The newest version this build knows.
    static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Creates the schema or brings it to `currentVersion`; refuses a database a newer hcipico migrated.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("CREATE SCHEMA IF NOT EXISTS hcipico", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS hcipico.schema_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            logger: logger
        )
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            var applied = 0
            for try await version in try await connection.query(
                "SELECT COALESCE(MAX(version), 0) FROM hcipico.schema_migrations",
                logger: logger
            ).decode(Int.self) {
                applied = version
            }
            guard applied <= currentVersion else { throw SchemaTooNew(found: applied, known: currentVersion) }
            for migration in migrations where migration.version > applied {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO hcipico.schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger
                )
                logger.info("forward: PostgreSQL schema hcipico migrated to version \(migration.version)")
            }
            let types = VariableType.known.compactMap(\.info)
            try await connection.query(
                """
                INSERT INTO hcipico.variable_types (code, quantity, unit)
                SELECT * FROM unnest(\(types.map(\.code))::text[], \(types.map(\.name))::text[], \(types.map(\.unit))::text[])
                ON CONFLICT (code) DO UPDATE SET quantity = excluded.quantity, unit = excluded.unit
                """,
                logger: logger
            )
            let ranges = MeasurementRange.picoCurrentRanges
            try await connection.query(
                """
                INSERT INTO hcipico.current_ranges (idx, full_scale_amperes, label)
                SELECT * FROM unnest(\(ranges.map { Int($0.index) })::integer[],
                    \(ranges.map(\.info.fullScale))::double precision[], \(ranges.map(\.info.label))::text[])
                ON CONFLICT (idx) DO UPDATE SET full_scale_amperes = excluded.full_scale_amperes, label = excluded.label
                """,
                logger: logger
            )
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// `pg_advisory_xact_lock`'s key for migrations ("hcip" in ASCII).
    static let lockKey: Int64 = 0x6863_6970

    struct SchemaTooNew: Error, CustomStringConvertible {
        var found: Int
        var known: Int
        var description: String {
            "the database's hcipico schema is version \(found), newer than this hcipico knows (\(known)): upgrade hcipico"
        }
    }
}
