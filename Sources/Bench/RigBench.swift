import Foundation
import GRDBSQLite
import MethodSCRIPT
import PicoLink
import RigJournal

/// `Bench rig`: journal ingest. The same packages (two values each, as a CA sends them) go into a
/// fresh journal two ways, alternating in one process:
///
/// - **journal**: `JournalWriter.record` as the rig calls it (group commit, ≤ 100 ms apart, WAL,
///   `synchronous = FULL`); each package's host time is the moment it is appended, so commit time
///   minus host time is its notification → committed latency.
/// - **bare SQLite**: a loop of prepared `sqlite3_bind_*`/`sqlite3_step` calls into the same schema with
///   the same pragmas, committing after as many packages as the journal's commits held on average.
///
/// A third run offers the journal a steady 200,000 samples/s (1,000 packages every 10 ms) and reports
/// whether it keeps up, the longest gap between commits and the p99 notification → committed latency
/// (each package is given the latency of the oldest package of its commit: an upper bound). CPU per
/// sample is getrusage over the whole process while the packages go in; the packages themselves are
/// made before the clock starts (decoding them is the decode suite's business), each stamped with its
/// host time as it is handed over.
enum RigBench {
    static let suite = BenchSuite(name: "rig", summary: "journal ingest against a bare SQLite insert loop") { json in
        try await run(json: json)
    }

    static let packages = 500_000
    static let valuesPerPackage = 2

    struct Figures {
        var samplesPerSecond: Double
        var cpuPerSample: Double
        var commits = 0
        var longestGap = 0.0
        var p99Latency = 0.0
        var packagesPerCommit = 0.0
    }

    static func run(json: Bool) async throws {
        _ = prepared.count  // made before any clock starts
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-rig-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var rows: [(journal: Figures, bare: Figures, paced: Figures)] = []
        for round in 1...3 {
            let journal = try await journalRun(path: directory.appendingPathComponent("j\(round).sqlite").path)
            let bare = try bareRun(
                path: directory.appendingPathComponent("b\(round).sqlite").path,
                perCommit: max(1, Int(journal.packagesPerCommit.rounded()))
            )
            let paced = try await journalRun(
                path: directory.appendingPathComponent("p\(round).sqlite").path,
                packagesPerSecond: 100_000
            )
            rows.append((journal, bare, paced))
        }
        if json {
            for (index, row) in rows.enumerated() {
                print(
                    "{\"suite\":\"rig\",\"round\":\(index + 1),\"journal_samples_per_s\":\(Int(row.journal.samplesPerSecond)),"
                        + "\"bare_samples_per_s\":\(Int(row.bare.samplesPerSecond)),"
                        + "\"paced_samples_per_s\":\(Int(row.paced.samplesPerSecond)),"
                        + "\"paced_p99_latency_ms\":\(row.paced.p99Latency * 1000),"
                        + "\"paced_longest_commit_gap_ms\":\(row.paced.longestGap * 1000),"
                        + "\"paced_cpu_us_per_sample\":\(row.paced.cpuPerSample * 1e6)}"
                )
            }
            return
        }
        print(
            "rig: \(packages) packages of \(valuesPerPackage) values into a fresh journal per run, WAL, synchronous = FULL"
        )
        print("       as fast as it goes (same transaction size)                        offered 200,000 samples/s")
        print(
            "round  journal/s  bare/s   ratio  pkg/commit  CPU/sample journal  bare   kept up/s  commits  longest gap  p99 latency  CPU/sample"
        )
        for (index, row) in rows.enumerated() {
            let j = row.journal
            let p = row.paced
            print(
                String(
                    format:
                        "%5d  %9.0f  %7.0f  %4.0f%%  %10.0f  %10.2f µs %5.2f µs  %9.0f  %7d  %8.1f ms  %8.1f ms  %7.2f µs",
                    index + 1,
                    j.samplesPerSecond,
                    row.bare.samplesPerSecond,
                    100 * j.samplesPerSecond / row.bare.samplesPerSecond,
                    j.packagesPerCommit,
                    j.cpuPerSample * 1e6,
                    row.bare.cpuPerSample * 1e6,
                    p.samplesPerSecond,
                    p.commits,
                    p.longestGap * 1000,
                    p.p99Latency * 1000,
                    p.cpuPerSample * 1e6
                )
            )
        }
        let ratios = rows.map { $0.journal.samplesPerSecond / $0.bare.samplesPerSecond }.sorted()
        print(String(format: "median ratio journal / bare: %.0f%%", 100 * ratios[ratios.count / 2]))
    }

    /// The packages every run hands over, made once.
    static let prepared: [PicoPackage] = (0..<packages).map { package($0, hostTime: 0) }

    static func package(_ index: Int, hostTime: Double) -> PicoPackage {
        PicoPackage(
            device: "bench",
            run: 1,
            index: index,
            loop: 0,
            scan: nil,
            hostTime: hostTime,
            values: [
                PicoValue(variable: VariableType(code: "eb")!, name: "t", value: Double(index) * 1e-3),
                PicoValue(
                    variable: .current,
                    name: "c",
                    value: 1.5e-6,
                    status: .ok,
                    range: MeasurementRange(rawValue: 0x88)
                ),
            ]
        )
    }

    static func provenance() -> RunProvenance {
        RunProvenance(
            device: "bench",
            deviceRun: 1,
            title: "bench",
            transport: "sim",
            scriptName: "bench.mscr",
            script: "pck_start",
            scriptSHA256: String(repeating: "0", count: 64),
            toolVersion: "bench",
            startTime: Date().timeIntervalSince1970
        )
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
    }

    /// `packagesPerSecond`: offer packages at that rate (1,000 at a time); nil: as fast as they go.
    static func journalRun(path: String, packagesPerSecond: Double? = nil) async throws -> Figures {
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer()
        let log = CommitTimes()
        writer.onCommit { log.add($0) }
        let run = provenance()
        let cpu = cpuSeconds()
        let start = Date().timeIntervalSince1970
        try await writer.runStarted(run)
        for index in 0..<packages {
            if let rate = packagesPerSecond, index % 1000 == 0 {
                let due = start + Double(index) / rate
                let wait = due - Date().timeIntervalSince1970
                if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            }
            var item = prepared[index]
            item.hostTime = Date().timeIntervalSince1970
            try await writer.record(item, run: run.runID)
        }
        try await writer.runEnded(
            run.runID,
            JournalRunEnd(complete: true, reason: nil, time: Date().timeIntervalSince1970)
        )
        try await writer.flush()
        let elapsed = Date().timeIntervalSince1970 - start
        let usedCPU = cpuSeconds() - cpu
        await writer.close()
        let commits = log.all
        var figures = Figures(
            samplesPerSecond: Double(packages * valuesPerPackage) / elapsed,
            cpuPerSample: usedCPU / Double(packages * valuesPerPackage)
        )
        figures.commits = commits.count
        let withPackages = commits.filter { $0.packages > 0 }
        figures.packagesPerCommit = Double(packages) / Double(max(1, withPackages.count))
        var previous = start
        for commit in commits {
            figures.longestGap = max(figures.longestGap, commit.committedAt - previous)
            previous = commit.committedAt
        }
        var latencies: [(Double, Int)] = withPackages.map {
            ($0.committedAt - ($0.oldestHostTime ?? $0.committedAt), $0.packages)
        }
        latencies.sort { $0.0 < $1.0 }
        var counted = 0
        for (latency, count) in latencies {
            counted += count
            if Double(counted) >= 0.99 * Double(packages) {
                figures.p99Latency = latency
                break
            }
        }
        return figures
    }

    /// The same rows through sqlite3's C API, `perCommit` packages per transaction.
    static func bareRun(path: String, perCommit: Int) throws -> Figures {
        _ = try Journal.open(path: path, rig: "bench")  // the same schema, then closed
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK, let db else { throw BareError.sqlite("open") }
        defer { sqlite3_close(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw BareError.sqlite(String(cString: sqlite3_errmsg(db)))
            }
        }
        try exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON")
        try exec(
            "INSERT INTO devices (name) VALUES ('bench'); INSERT INTO runs (uuid, device_id, device_run, title, state, "
                + "started_at, transport, script_name, script, script_sha256, tool_version) VALUES ('x', 1, 1, 'b', "
                + "'running', 0, 'sim', 'b', 'b', 'b', 'b')"
        )
        var insertPackage: OpaquePointer?
        var insertValue: OpaquePointer?
        sqlite3_prepare_v2(
            db,
            "INSERT INTO packages (run_id, idx, loop, scan, host_time, device_time) VALUES (?, ?, ?, ?, ?, ?)",
            -1,
            &insertPackage,
            nil
        )
        sqlite3_prepare_v2(
            db,
            "INSERT INTO package_values (run_id, idx, position, variable, name, value, status, current_range, noise) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            -1,
            &insertValue,
            nil
        )
        defer {
            sqlite3_finalize(insertPackage)
            sqlite3_finalize(insertValue)
        }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let cpu = cpuSeconds()
        let start = Date().timeIntervalSince1970
        var inTransaction = 0
        try exec("BEGIN IMMEDIATE")
        for index in 0..<packages {
            var item = prepared[index]
            item.hostTime = Date().timeIntervalSince1970
            sqlite3_bind_int64(insertPackage, 1, 1)
            sqlite3_bind_int64(insertPackage, 2, Int64(index))
            sqlite3_bind_int64(insertPackage, 3, 0)
            sqlite3_bind_null(insertPackage, 4)
            sqlite3_bind_double(insertPackage, 5, item.hostTime)
            sqlite3_bind_null(insertPackage, 6)
            guard sqlite3_step(insertPackage) == SQLITE_DONE else { throw BareError.sqlite("package") }
            sqlite3_reset(insertPackage)
            for (position, value) in item.values.enumerated() {
                sqlite3_bind_int64(insertValue, 1, 1)
                sqlite3_bind_int64(insertValue, 2, Int64(index))
                sqlite3_bind_int64(insertValue, 3, Int64(position))
                sqlite3_bind_text(insertValue, 4, value.code, -1, transient)
                sqlite3_bind_text(insertValue, 5, value.name ?? "", -1, transient)
                sqlite3_bind_double(insertValue, 6, value.value)
                if let status = value.status {
                    sqlite3_bind_int64(insertValue, 7, Int64(status.rawValue))
                } else {
                    sqlite3_bind_null(insertValue, 7)
                }
                if let range = value.range {
                    sqlite3_bind_int64(insertValue, 8, Int64(range.rawValue))
                } else {
                    sqlite3_bind_null(insertValue, 8)
                }
                sqlite3_bind_null(insertValue, 9)
                guard sqlite3_step(insertValue) == SQLITE_DONE else { throw BareError.sqlite("value") }
                sqlite3_reset(insertValue)
            }
            inTransaction += 1
            if inTransaction == perCommit {
                try exec("COMMIT; BEGIN IMMEDIATE")
                inTransaction = 0
            }
        }
        try exec("COMMIT")
        let elapsed = Date().timeIntervalSince1970 - start
        return Figures(
            samplesPerSecond: Double(packages * valuesPerPackage) / elapsed,
            cpuPerSample: (cpuSeconds() - cpu) / Double(packages * valuesPerPackage)
        )
    }

    enum BareError: Error {
        case sqlite(String)
    }
}

/// Commits seen by the writer's observer.
final class CommitTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var commits: [JournalCommit] = []
    func add(_ commit: JournalCommit) {
        lock.lock()
        commits.append(commit)
        lock.unlock()
    }
    var all: [JournalCommit] {
        lock.lock()
        defer { lock.unlock() }
        return commits
    }
}
