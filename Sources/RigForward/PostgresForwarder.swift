import Coordination
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import RigJournal
import RigModel
import Synchronization

/// Forwards a rig's journal to PostgreSQL: at least once, in order within each run, idempotent.
///
/// Each batch is one PostgreSQL transaction: the runs' rows (with the position they reach), then the
/// packages and their values by `COPY`. The journal's position moves only after that commit, so a
/// crash or an outage anywhere resends; on every (re)connect the positions of unfinished runs are
/// taken from PostgreSQL, whose primary keys — (rig, run UUID, package index) — refuse a duplicate
/// outright, so a resend can never store a package twice. Once the packages are up to date, the runs'
/// analyses follow (`PostgresAnalyses`), each once its run is there. Failures are retried with back-off (1 s
/// doubling to 30 s), for as long as the outage lasts.
public final class PostgresForwarder: Sendable {
    /// The journal's name for this sink (its positions are kept under it).
    public static let sink = "postgres"

    private let journal: Journal
    /// The rig's name: the first part of every key in PostgreSQL.
    private let rig: String
    /// Where and how PostgreSQL is reached, as the config says.
    private let config: PostgresForwardConfig
    /// The password, read from the config's environment variable or file (nil: none).
    private let password: String?
    private let logger: Logger
    private let state = Mutex(ForwarderStatus())
    /// What the operation limit, the retry pauses and the idle poll run on.
    private let clock: any TimeSource
    private let wakeSignal: WakeSignal

    /// A forwarder of `journal`, for the rig `rig`, to the PostgreSQL `config` names, signing in with
    /// `password`.
    public init(
        journal: Journal,
        rig: String,
        config: PostgresForwardConfig,
        password: String?,
        logger: Logger,
        clock: any TimeSource = SystemClock()
    ) {
        self.journal = journal
        self.rig = rig
        self.config = config
        self.password = password
        self.logger = logger
        self.clock = clock
        wakeSignal = WakeSignal(clock: clock)
    }

    public var status: ForwarderStatus { state.withLock { $0 } }

    /// The URL without password.
    public var target: String { config.url }

    /// A commit happened: forward it without waiting for the next poll.
    public func wake() { wakeSignal.signal() }

    /// The connection in use, for `finish` to close.
    private let current = Mutex<PostgresConnection?>(nil)

    /// Set by `finish`: return from `run` once up to date.
    private let draining = Atomic<Bool>(false)

    /// Asks `run` to forward what is committed and then return; it returns at the latest after
    /// `patience` (what is left stays in the journal for the next start).
    public func finish(running task: Task<Void, Never>, patience: Duration) async {
        drain()
        let ended = Latch<Void>()
        Task {
            await task.value
            ended.settle(())
        }
        guard await ended.wait(upTo: patience, on: clock) == nil else { return }
        task.cancel()
        await abandon()
        await task.value
    }

    /// Asks `run` to forward what is committed and then return.
    public func drain() {
        draining.store(true, ordering: .releasing)
        wakeSignal.signal()
    }

    /// Closes the connection in use: an operation on a dead server may not heed the cancellation of
    /// `run`'s task, and closing the connection ends it.
    public func abandon() async {
        try? await current.withLock { $0 }?.close()
    }

    public func run() async {
        var connection: PostgresConnection?
        var failures = 0
        var lastLag = 0.0
        var lastPrune = 0.0
        while !Task.isCancelled {
            do {
                if connection == nil {
                    let opened = try await connect()
                    connection = opened
                    current.withLock { $0 = opened }
                    try await bounded(opened, Self.operationLimit) { [self] in
                        try await PostgresSchema.migrate(opened, logger: logger)
                        try await resync(opened)
                    }
                    logger.info("forward: connected to \(config.url)")
                }
                guard let connection else { continue }
                let now = Date().timeIntervalSince1970
                // Read before the journal: only a pass that began after `finish` sees its last commits.
                let drainRequested = draining.load(ordering: .acquiring)
                if let batch = try journal.forwardBatch(sink: Self.sink, limit: config.batch) {
                    state.withLock { $0.state = .forwarding }
                    try await bounded(connection, Self.operationLimit) { [self] in
                        try await send(batch, over: connection)
                    }
                    try journal.confirmForwarded(sink: Self.sink, batch: batch)
                    state.withLock { $0.forwardedPackages += batch.packages.count }
                    failures = 0
                    if now - lastLag >= 0.5 {
                        try updateLag()
                        lastLag = now
                    }
                    continue
                }
                let analyses = try journal.analysesToForward(sink: Self.sink, limit: 50)
                if !analyses.isEmpty {
                    try await bounded(connection, Self.operationLimit) { [rig, logger] in
                        try await PostgresAnalyses.send(analyses, rig: rig, over: connection, logger: logger)
                    }
                    try journal.confirmForwarded(sink: Self.sink, analyses: analyses)
                    state.withLock { $0.forwardedAnalyses += analyses.count }
                    failures = 0
                    continue
                }
                failures = 0
                try updateLag()
                lastLag = now
                state.withLock { $0.state = .idle }
                if drainRequested { break }
                if let retention = config.retention, now - lastPrune >= 60 {
                    lastPrune = now
                    prune(retention: retention)
                }
                await wakeSignal.wait(upTo: .seconds(1))
            } catch {
                if Task.isCancelled { break }
                failures += 1
                let message = ForwardFailureText.describe(error, target: config.url, sslMode: config.sslMode)
                let pause = min(30.0, pow(2.0, Double(min(failures - 1, 5))))
                state.withLock {
                    $0.state = .waiting
                    $0.errors += 1
                    $0.lastError = message
                }
                try? updateLag()
                logger.warning("forward: \(message); retrying in \(Int(pause)) s")
                if let broken = connection {
                    connection = nil
                    try? await broken.close()
                }
                // The backlog keeps growing while PostgreSQL is away: the lag is brought up to date each
                // second of the pause, so the page and /metrics show it.
                let resume = clock.now + .seconds(pause)
                while !Task.isCancelled && clock.now < resume {
                    try? await clock.sleep(until: min(clock.now + .seconds(1), resume))
                    try? updateLag()
                }
            }
        }
        if let connection { try? await connection.close() }
    }

    /// How long one transaction (or the schema check after connecting) may take before the connection
    /// is taken for dead: a server that vanishes mid-COPY can leave a write waiting on a socket nobody
    /// answers.
    static let operationLimit: Duration = .seconds(20)

    /// Runs `body`; if it has not finished within `limit`, closes `connection`, which fails whatever
    /// waits on it, and throws `OperationTimedOut` (`CancellationError` when the caller was cancelled
    /// first).
    func bounded(
        _ connection: PostgresConnection,
        _ limit: Duration,
        _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        let outcome = Latch<Result<Void, any Error>>()
        // The operation runs apart, so that one which never returns (a driver waiting on a connection that
        // died under it) cannot hold the forwarder: the limit passes first and the connection is closed.
        let operation = Task {
            do {
                try await body()
                outcome.settle(.success(()))
            } catch {
                outcome.settle(.failure(error))
            }
        }
        // A connection that closes (the server went away) ends the operation at once, whatever the
        // driver makes of the queries it had in flight.
        connection.closeFuture.whenComplete { _ in outcome.settle(.failure(ConnectionClosed())) }
        if let settled = await outcome.wait(upTo: limit, on: clock) { return try settled.get() }
        outcome.settle(.failure(Task.isCancelled ? CancellationError() : OperationTimedOut(limit: limit)))
        operation.cancel()
        try? await connection.close()
        try outcome.value?.get()
    }

    struct ConnectionClosed: Error, CustomStringConvertible {
        var description: String { "the connection to PostgreSQL closed" }
    }

    struct OperationTimedOut: Error, CustomStringConvertible {
        var limit: Duration
        var description: String {
            "PostgreSQL did not answer within \(limit.components.seconds) s; the connection was closed"
        }
    }

    private func connect() async throws -> PostgresConnection {
        var configuration: PostgresConnection.Configuration
        switch config.endpoint {
        case .socket(let path):
            configuration = .init(
                unixSocketPath: path,
                username: config.user,
                password: password,
                database: config.database
            )
        case .tcp(let host, let port):
            configuration = .init(
                host: host,
                port: port,
                username: config.user,
                password: password,
                database: config.database,
                tls: try Self.tls(config.sslMode)
            )
        }
        configuration.options.connectTimeout = .seconds(10)
        return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
    }

    static func tls(_ mode: PostgresForwardConfig.SSLMode) throws -> PostgresConnection.Configuration.TLS {
        switch mode {
        case .disable:
            return .disable
        case .prefer:
            return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require:
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            return .require(try NIOSSLContext(configuration: configuration))
        case .verifyFull:
            return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    /// Takes the positions of the runs not wholly confirmed from PostgreSQL: after a failure the journal
    /// cannot know whether the last batch was committed, PostgreSQL can.
    private func resync(_ connection: PostgresConnection) async throws {
        let pending = try journal.unconfirmedRuns(sink: Self.sink)
        guard !pending.isEmpty else { return }
        var known: Set<String> = []
        let rows = try await connection.query(
            """
            SELECT run_uuid::text, packages, last_idx, state FROM hcipico.runs
            WHERE rig = \(rig) AND run_uuid::text = ANY(\(pending.map { $0.lowercased() }))
            """,
            logger: logger
        )
        for try await (uuid, packages, lastIndex, runState) in rows.decode((String, Int, Int, String).self) {
            known.insert(uuid.lowercased())
            try journal.setForwardPosition(
                sink: Self.sink,
                run: uuid.lowercased(),
                packages: packages,
                lastIndex: lastIndex,
                state: runState
            )
        }
        for uuid in pending where !known.contains(uuid.lowercased()) {
            try journal.setForwardPosition(sink: Self.sink, run: uuid, packages: 0, lastIndex: -1, state: "")
        }
    }

    private func send(_ batch: ForwardBatch, over connection: PostgresConnection) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            for run in batch.runs { try await upsert(run, over: connection) }
            if !batch.packages.isEmpty {
                let columns = ForwardColumns(rig: rig, batch: batch)
                try await connection.query(columns.packagesInsert, logger: logger)
                try await connection.query(columns.valuesInsert, logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    private func upsert(_ run: ForwardBatch.Run, over connection: PostgresConnection) async throws {
        let started = Date(timeIntervalSince1970: run.startedAt)
        let ended = run.endedAt.map { Date(timeIntervalSince1970: $0) }
        try await connection.query(
            """
            INSERT INTO hcipico.runs (rig, run_uuid, journal_run_id, device, device_run, title, state, reason,
                started_at, ended_at, packages, last_idx, overflowed, address, address_type, transport, firmware,
                serial_number, script_name, script, script_sha256, link, tool_version, rssi, cell, found_at_connect)
            VALUES (\(rig), \(run.uuid)::uuid, \(run.id), \(run.device), \(run.deviceRun), \(run.title),
                \(run.state), \(run.reason), \(started), \(ended), \(run.forwardedAfter), \(run.lastIndexAfter),
                \(run.overflowed), \(run.address), \(run.addressType), \(run.transport), \(run.firmware),
                \(run.serialNumber), \(run.scriptName), \(run.script), \(run.scriptSHA256), \(run.link),
                \(run.toolVersion), \(run.rssi), \(run.cell), \(run.foundAtConnect))
            ON CONFLICT (rig, run_uuid) DO UPDATE SET state = excluded.state, reason = excluded.reason,
                ended_at = excluded.ended_at, packages = excluded.packages, last_idx = excluded.last_idx,
                overflowed = excluded.overflowed, link = excluded.link, rssi = excluded.rssi,
                device_run = excluded.device_run, cell = excluded.cell
            """,
            logger: logger
        )
    }

    private func updateLag() throws {
        let lag = try journal.forwardLag(sink: Self.sink)
        let now = Date().timeIntervalSince1970
        state.withLock {
            $0.lagPackages = lag.packages
            $0.lagSeconds = lag.oldestHostTime.map { max(0, now - $0) } ?? 0
        }
    }

    private func prune(retention: Double) {
        do {
            let pruned = try journal.prune(sink: Self.sink, endedBefore: Date().timeIntervalSince1970 - retention)
            guard pruned.runs > 0 else { return }
            state.withLock {
                $0.prunedRuns += pruned.runs
                $0.prunedPackages += pruned.packages
            }
            logger.info("forward: pruned \(pruned.packages) packages of \(pruned.runs) forwarded runs from the journal")
        } catch {
            logger.warning("forward: pruning failed: \(error)")
        }
    }
}
