import Foundation
import Logging
import PicoAnalysis
import PostgresNIO
import RigJournal

/// Writes runs' analyses into PostgreSQL (schema version 4): `run_analyses` (the results as `jsonb`),
/// and the same results as rows in `peaks`, `circuit_fits` and `fit_parameters`, in one transaction. A
/// run's earlier rows are replaced, so a resend or a new analysis leaves one set.
enum PostgresAnalyses {
    static func send(
        _ analyses: [ForwardedAnalysis],
        rig: String,
        over connection: PostgresConnection,
        logger: Logger
    ) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            for forwarded in analyses { try await write(forwarded, rig: rig, connection, logger) }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    private static func write(
        _ forwarded: ForwardedAnalysis,
        rig: String,
        _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        let uuid = forwarded.uuid
        let analysis = forwarded.analysis
        try await connection.query(
            "DELETE FROM hcipico.peaks WHERE rig = \(rig) AND run_uuid = \(uuid)::uuid",
            logger: logger
        )
        try await connection.query(
            "DELETE FROM hcipico.fit_parameters WHERE rig = \(rig) AND run_uuid = \(uuid)::uuid",
            logger: logger
        )
        try await connection.query(
            "DELETE FROM hcipico.circuit_fits WHERE rig = \(rig) AND run_uuid = \(uuid)::uuid",
            logger: logger
        )
        let analysedAt = Date(timeIntervalSince1970: analysis.analysedAt)
        let json = analysis.results?.json
        try await connection.query(
            """
            INSERT INTO hcipico.run_analyses (rig, run_uuid, analysed_at, kind, results, note)
            VALUES (\(rig), \(uuid)::uuid, \(analysedAt), \(analysis.kind.rawValue), \(json)::jsonb, \(analysis.note))
            ON CONFLICT (rig, run_uuid) DO UPDATE SET analysed_at = excluded.analysed_at, kind = excluded.kind,
                results = excluded.results, note = excluded.note
            """,
            logger: logger
        )
        guard let results = analysis.results else { return }
        for (curve, seq, peak) in results.numberedPeaks {
            try await connection.query(
                """
                INSERT INTO hcipico.peaks (rig, run_uuid, curve, scan, seq, sweep, direction, potential, peak_current,
                    baseline_current, height, prominence, width, area, charge, left_foot, right_foot)
                VALUES (\(rig), \(uuid)::uuid, \(curve), \(peak.scan), \(seq), \(peak.sweep),
                    \(peak.direction.rawValue), \(peak.potential), \(peak.current), \(finite(peak.baselineCurrent)),
                    \(finite(peak.height)), \(finite(peak.prominence)), \(finite(peak.width)), \(finite(peak.area)),
                    \(peak.charge.flatMap(finite)), \(finite(peak.leftFoot)), \(finite(peak.rightFoot)))
                """,
                logger: logger
            )
        }
        if let fit = results.fit {
            try await connection.query(
                """
                INSERT INTO hcipico.circuit_fits (rig, run_uuid, circuit, weighting, converged, iterations,
                    chi_squared, reduced_chi_squared)
                VALUES (\(rig), \(uuid)::uuid, \(fit.circuit.code), \(fit.weighting.rawValue), true, \(fit.iterations),
                    \(finite(fit.chiSquared)), \(finite(fit.reducedChiSquared)))
                """,
                logger: logger
            )
            for (index, parameter) in fit.circuit.parameters.enumerated() {
                try await connection.query(
                    """
                    INSERT INTO hcipico.fit_parameters (rig, run_uuid, position, name, unit, value, std_error)
                    VALUES (\(rig), \(uuid)::uuid, \(index + 1), \(parameter.name), \(parameter.unit),
                        \(fit.values[index]), \(finite(fit.standardErrors[index])))
                    """,
                    logger: logger
                )
            }
        }
        if let (circuit, error) = results.fitFailure {
            try await connection.query(
                """
                INSERT INTO hcipico.circuit_fits (rig, run_uuid, circuit, converged, failure)
                VALUES (\(rig), \(uuid)::uuid, \(circuit.code), false, \(error.description))
                """,
                logger: logger
            )
        }
    }

    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }

    /// Schema version 4.
    static let migration = PostgresSchema.Migration(
        version: 4,
        name: "analyses, peaks, circuit fits",
        statements: [
            """
            CREATE TABLE hcipico.run_analyses (
                rig text NOT NULL,
                run_uuid uuid NOT NULL,
                analysed_at timestamptz NOT NULL,
                kind text NOT NULL CHECK (kind IN ('peaks', 'fit', 'none')),
                results jsonb,
                note text,
                PRIMARY KEY (rig, run_uuid)
            )
            """,
            """
            CREATE TABLE hcipico.peaks (
                rig text NOT NULL,
                run_uuid uuid NOT NULL,
                curve text NOT NULL,
                scan integer NOT NULL,
                seq integer NOT NULL,
                sweep integer NOT NULL,
                direction text NOT NULL,
                potential double precision NOT NULL,
                peak_current double precision NOT NULL,
                baseline_current double precision,
                height double precision,
                prominence double precision,
                width double precision,
                area double precision,
                charge double precision,
                left_foot double precision,
                right_foot double precision,
                PRIMARY KEY (rig, run_uuid, curve, scan, seq)
            )
            """,
            """
            CREATE TABLE hcipico.circuit_fits (
                rig text NOT NULL,
                run_uuid uuid NOT NULL,
                circuit text NOT NULL,
                weighting text,
                converged boolean NOT NULL,
                iterations integer,
                chi_squared double precision,
                reduced_chi_squared double precision,
                failure text,
                PRIMARY KEY (rig, run_uuid)
            )
            """,
            """
            CREATE TABLE hcipico.fit_parameters (
                rig text NOT NULL,
                run_uuid uuid NOT NULL,
                position integer NOT NULL,
                name text NOT NULL,
                unit text NOT NULL,
                value double precision NOT NULL,
                std_error double precision,
                PRIMARY KEY (rig, run_uuid, position)
            )
            """,
        ]
    )
}
