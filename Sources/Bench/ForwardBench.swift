import Foundation
import Logging
import MethodSCRIPT
import PicoLink
import RigForward
import RigJournal
import RigModel

/// `Bench forward`: journal → PostgreSQL. A journal of 3 runs × 40,000 packages (three values each,
/// as SWV sends them: 360,000 samples) is forwarded into a fresh `hcipico` schema of a throwaway local
/// cluster (`Tools/pg-cluster.sh`, Unix socket) by `PostgresForwarder` as the rig runs it (batches of
/// 5,000 packages, each one transaction: the run rows, then packages and values as multi-row inserts
/// bound as arrays, then the position in the journal); then the very rows it wrote are exported and
/// loaded into empty tables of the same definition (same primary keys) with `psql \copy`, PostgreSQL's
/// own bulk path, the yardstick. Three rounds, alternating, each into fresh tables.
enum ForwardBench {
    static let suite = BenchSuite(name: "forward", summary: "journal -> PostgreSQL against psql \\copy") { json in
        try await run(json: json)
    }

    static let runs = 3
    static let packagesPerRun = 40_000
    static let valuesPerPackage = 3

    static func run(json: Bool) async throws {
        let script = FileManager.default.currentDirectoryPath + "/Tools/pg-cluster.sh"
        guard FileManager.default.isExecutableFile(atPath: script),
            FileManager.default.fileExists(atPath: "/usr/lib/postgresql")
        else {
            print(
                "forward: skipped (needs PostgreSQL's server and Tools/pg-cluster.sh: run from the package root after make test-deps)"
            )
            return
        }
        let cluster = "/tmp/hcipico-bench-pg-\(getpid())"
        try shell([script, "start", cluster])
        defer { _ = try? shell([script, "destroy", cluster]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-forward-bench-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = runs * packagesPerRun * valuesPerPackage
        var rounds: [(forward: Double, copy: Double)] = []
        for round in 1...3 {
            try psql(script, cluster, "DROP SCHEMA IF EXISTS hcipico CASCADE; DROP SCHEMA IF EXISTS yardstick CASCADE")
            let path = folder.appendingPathComponent("journal-\(round).sqlite").path
            let journal = try await makeJournal(path: path)
            let forwarder = PostgresForwarder(
                journal: journal,
                rig: "bench",
                config: PostgresForwardConfig(
                    url: "bench",
                    endpoint: .socket(path: "\(cluster)/.s.PGSQL.5432"),
                    user: "hcipico",
                    database: "hcipico",
                    sslMode: .disable
                ),
                password: nil,
                logger: {
                    var logger = Logger(label: "bench")
                    logger.logLevel = .warning
                    return logger
                }()
            )
            let started = ContinuousClock.now
            let task = Task { await forwarder.run() }
            await forwarder.finish(running: task, patience: .seconds(600))
            let forwardSeconds = (ContinuousClock.now - started).inSeconds
            guard forwarder.status.forwardedPackages == runs * packagesPerRun else {
                throw BenchFailure(
                    "forward: \(forwarder.status.forwardedPackages) packages forwarded, \(forwarder.status.lastError ?? "")"
                )
            }
            // The yardstick: the same rows, through psql's \copy into tables of the same definition.
            let packagesFile = folder.appendingPathComponent("packages-\(round).csv").path
            let valuesFile = folder.appendingPathComponent("values-\(round).csv").path
            try psql(script, cluster, "\\copy hcipico.packages TO '\(packagesFile)' CSV")
            try psql(script, cluster, "\\copy hcipico.package_values TO '\(valuesFile)' CSV")
            try psql(
                script,
                cluster,
                """
                CREATE SCHEMA yardstick;
                CREATE TABLE yardstick.packages (LIKE hcipico.packages INCLUDING ALL);
                CREATE TABLE yardstick.package_values (LIKE hcipico.package_values INCLUDING ALL)
                """
            )
            let copyStarted = ContinuousClock.now
            try shell([
                script, "psql", cluster, "-c", "\\copy yardstick.packages FROM '\(packagesFile)' CSV", "-c",
                "\\copy yardstick.package_values FROM '\(valuesFile)' CSV",
            ])
            let copySeconds = (ContinuousClock.now - copyStarted).inSeconds
            rounds.append((Double(samples) / forwardSeconds, Double(samples) / copySeconds))
        }
        if json {
            for (index, round) in rounds.enumerated() {
                print(
                    "{\"suite\":\"forward\",\"round\":\(index + 1),\"forward_samples_per_s\":\(Int(round.forward)),\"copy_samples_per_s\":\(Int(round.copy))}"
                )
            }
            return
        }
        print(
            "forward: \(samples) samples (\(runs * packagesPerRun) packages of \(valuesPerPackage) values) journal -> PostgreSQL"
        )
        print("round  forwarder samples/s  psql \\copy samples/s  forwarder / \\copy")
        for (index, round) in rounds.enumerated() {
            print(
                String(
                    format: "%5d  %19.0f  %20.0f  %17.2f",
                    index + 1,
                    round.forward,
                    round.copy,
                    round.forward / round.copy
                )
            )
        }
        let forward = rounds.map(\.forward).sorted()[1]
        let copy = rounds.map(\.copy).sorted()[1]
        print(String(format: "median %17.0f  %20.0f  %17.2f", forward, copy, forward / copy))
    }

    /// A fresh journal with the bench's runs, interleaved as several devices record them.
    static func makeJournal(path: String) async throws -> Journal {
        let journal = try Journal.open(path: path, rig: "bench")
        let writer = journal.writer(commitInterval: 0.05)
        let provenances = (0..<runs).map { run in
            RunProvenance(
                device: "pico-\(run)",
                deviceRun: 1,
                title: "SWV.mscr",
                transport: "sim",
                scriptName: "SWV.mscr",
                script: "var p\nvar c\nvar f\nvar r",
                scriptSHA256: String(repeating: "0", count: 64),
                toolVersion: "bench",
                startTime: 1_795_600_000
            )
        }
        for provenance in provenances { try await writer.runStarted(provenance) }
        for index in 0..<packagesPerRun {
            for (run, provenance) in provenances.enumerated() {
                let potential = -0.5 + Double(index) * 1e-5
                try await writer.record(
                    PicoPackage(
                        device: provenance.device,
                        run: 1,
                        index: index,
                        loop: 0,
                        scan: 0,
                        hostTime: 1_795_600_000 + Double(index) * 0.01 + Double(run) * 0.001,
                        values: [
                            PicoValue(variable: .appliedPotential, name: "p", value: potential),
                            PicoValue(variable: .current, name: "f", value: 1.25e-6 * sin(Double(index)), status: .ok),
                            PicoValue(variable: .current, name: "r", value: -1.5e-6 * cos(Double(index)), status: .ok),
                        ]
                    ),
                    run: provenance.runID
                )
            }
        }
        for provenance in provenances {
            try await writer.runEnded(provenance.runID, JournalRunEnd(complete: true, reason: nil, time: 1_795_600_500))
        }
        try await writer.flush()
        await writer.close()
        return journal
    }

    static func psql(_ script: String, _ cluster: String, _ sql: String) throws {
        try shell([script, "psql", cluster, "-q", "-c", sql])
    }

    /// Runs a command to its end (posix_spawn and waitpid: Foundation's `Process.waitUntilExit` waits on
    /// a run loop the async main thread never turns). Its output goes to a file, not a pipe: the server
    /// `pg-cluster.sh start` leaves running inherits it and would hold a pipe open for good.
    @discardableResult
    static func shell(_ arguments: [String]) throws -> String {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("hcipico-bench-\(UUID()).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ)
        guard spawned == 0 else {
            throw BenchFailure("\(arguments[0]): cannot start: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        let code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            throw BenchFailure(
                "\(arguments.joined(separator: " ")): exit \(exited ? code : 128 + (status & 0x7f)): \(text)"
            )
        }
        return text
    }

}
