import PostgresNIO
import RigJournal

/// A batch as two multi-row inserts, each row set bound as a handful of arrays (one per column, in
/// postgres-nio's binary encoding) and spread by `unnest`: two statements per batch, whatever its
/// size. NULLs travel as values no real row has — NaN for a double (PostgreSQL's NaN equals itself,
/// so `NULLIF` finds it), `Int.min` for an integer, the empty string for a name — and become NULL on
/// the way in. Plain inserts, not `ON CONFLICT DO NOTHING`: a row that is already there means the
/// journal's position and PostgreSQL's disagree, which must fail loudly (the forwarder then takes
/// PostgreSQL's positions) rather than pass silently.
struct ForwardColumns {
    static let null = Int.min

    let packagesInsert: PostgresQuery
    let valuesInsert: PostgresQuery

    init(rig: String, batch: ForwardBatch) {
        let uuids = batch.runs.map { $0.uuid.lowercased() }
        let packages = batch.packages
        let packageRuns = packages.map { uuids[$0.run] }
        let indexes = packages.map(\.index)
        let loops = packages.map(\.loop)
        let scans = packages.map { $0.scan ?? Self.null }
        let hostTimes = packages.map(\.hostTime)
        let deviceTimes = packages.map { $0.deviceTime ?? .nan }
        packagesInsert = """
            INSERT INTO hcipico.packages (rig, run_uuid, idx, loop, scan, host_time, device_time)
            SELECT \(rig), r::uuid, i, l, NULLIF(s, \(Self.null)), to_timestamp(h), NULLIF(d, 'NaN'::float8)
            FROM unnest(\(packageRuns)::text[], \(indexes)::int8[], \(loops)::int8[], \(scans)::int8[],
                \(hostTimes)::float8[], \(deviceTimes)::float8[]) AS t(r, i, l, s, h, d)
            """
        let values = batch.values
        let valueRuns = values.map { uuids[$0.run] }
        let valueIndexes = values.map(\.index)
        let positions = values.map(\.position)
        let variables = values.map(\.variable)
        let names = values.map { $0.name ?? "" }
        let numbers = values.map { $0.value ?? .nan }
        let statuses = values.map { $0.status ?? Self.null }
        let ranges = values.map { $0.range ?? Self.null }
        let noises = values.map { $0.noise ?? Self.null }
        valuesInsert = """
            INSERT INTO hcipico.package_values (rig, run_uuid, idx, position, variable, name, value, status,
                current_range, noise)
            SELECT \(rig), r::uuid, i, p, v, NULLIF(n, ''), NULLIF(x, 'NaN'::float8), NULLIF(s, \(Self.null)),
                NULLIF(c, \(Self.null)), NULLIF(o, \(Self.null))
            FROM unnest(\(valueRuns)::text[], \(valueIndexes)::int8[], \(positions)::int8[], \(variables)::text[],
                \(names)::text[], \(numbers)::float8[], \(statuses)::int8[], \(ranges)::int8[], \(noises)::int8[])
                AS t(r, i, p, v, n, x, s, c, o)
            """
    }
}
