import Foundation
import Logging
import RigCore
import RigForward
import RigJournal
import RigStatus

/// The rig's fleet side, as its config asks: the forwarder to PostgreSQL and the status server
/// (page, `/metrics`, `/healthz`). Secrets are read here, once, and go nowhere but to their use.
final class RigFleet: Sendable {
    let forwarder: PostgresForwarder?
    private let forwarding: Task<Void, Never>?
    private let tasks: [Task<Void, Never>]

    private init(
        forwarder: PostgresForwarder?,
        forwarding: Task<Void, Never>?,
        tasks: [Task<Void, Never>]
    ) {
        self.forwarder = forwarder
        self.forwarding = forwarding
        self.tasks = tasks
    }

    /// Reads the secrets the config names (a problem is thrown as text, before anything starts).
    struct Secrets {
        var password: String?
        var token: String?

        init(_ config: RigConfig) throws(SecretFileError) {
            if let forward = config.forward {
                if let name = forward.passwordEnvironment {
                    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
                        throw SecretFileError(message: "forward.postgres.password_env: \(name) is not set")
                    }
                    password = value
                } else if let file = forward.passwordFile {
                    password = try SecretFile.read(file)
                }
            }
            if let file = config.status?.tokenFile { token = try SecretFile.read(file) }
        }
    }

    /// Starts what the config asks for. Returns once the status server listens (its address logged),
    /// or throws why it cannot.
    static func start(
        config: RigConfig,
        secrets: Secrets,
        journal: Journal,
        writer: JournalWriter,
        rig: Rig,
        logger: Logger
    ) async throws -> RigFleet {
        var tasks: [Task<Void, Never>] = []
        var forwarder: PostgresForwarder?
        var forwarding: Task<Void, Never>?
        if let forward = config.forward {
            let settings = ForwarderSettings(
                rig: config.name,
                target: forward.url,
                endpoint: {
                    switch forward.endpoint {
                    case .tcp(let host, let port): .tcp(host: host, port: port)
                    case .socket(let path): .socket(path: path)
                    }
                }(),
                user: forward.user,
                password: secrets.password,
                database: forward.database,
                tls: {
                    switch forward.sslMode {
                    case .disable: .disable
                    case .prefer: .prefer
                    case .require: .require
                    case .verifyFull: .verifyFull
                    }
                }(),
                batch: forward.batch,
                retention: forward.retention
            )
            let started = PostgresForwarder(journal: journal, settings: settings, logger: logger)
            writer.onCommit { _ in started.wake() }
            forwarding = Task { await started.run() }
            logger.info(
                "forward: to \(forward.url)\(forward.retention.map { ", journal retention \(DurationText.text($0))" } ?? "")"
            )
            forwarder = started
        }
        if let status = config.status {
            let forwarderStatus = forwarder
            let sources = StatusSources(
                rig: config.name,
                version: "hcipico \(HCIPico.configuration.version)",
                journal: journal,
                writer: writer,
                devices: { rig.snapshots },
                forward: {
                    forwarderStatus.map { forwarder in
                        let status = forwarder.status
                        return ForwardSummary(
                            target: forwarder.target,
                            state: status.state.rawValue,
                            forwardedPackages: status.forwardedPackages,
                            lagPackages: status.lagPackages,
                            lagSeconds: status.lagSeconds,
                            errors: status.errors,
                            lastError: status.lastError
                        )
                    }
                },
                droppedLogLines: { StandardError.dropped.load(ordering: .relaxed) }
            )
            let started = StatusServer(
                sources: sources,
                host: status.host,
                port: status.port,
                token: secrets.token,
                logger: logger
            )
            let start = ServerStart()
            tasks.append(
                Task {
                    do {
                        try await started.run()
                    } catch {
                        start.settle(.failed("\(error)"))
                    }
                }
            )
            tasks.append(Task { start.settle(.listening(port: await started.boundPort())) })
            guard case .listening(let port) = await start.wait() else {
                for task in tasks { task.cancel() }
                let message = if case .failed(let text) = await start.wait() { text } else { "" }
                throw StatusStartError(
                    message: "status page: cannot listen on \(status.host):\(status.port): \(message)"
                )
            }
            let shown = status.host.contains(":") ? "[\(status.host)]" : status.host
            logger.info("status page: http://\(shown):\(port)/\(secrets.token == nil ? "" : " (token required)")")
        }
        return RigFleet(forwarder: forwarder, forwarding: forwarding, tasks: tasks)
    }

    /// Stops the forwarder, after up to 2 s to forward the last commits (what is left waits in the
    /// journal for the next start), then the server.
    func stop() async {
        if let forwarder, let forwarding { await forwarder.finish(running: forwarding, patience: .seconds(2)) }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Lines for the rig's end summary.
    var summary: [String] {
        guard let forwarder else { return [] }
        let status = forwarder.status
        var line =
            "forward: \(status.forwardedPackages) packages to \(forwarder.target) this run, \(status.lagPackages) waiting"
        if status.errors > 0 { line += ", \(status.errors) errors (last: \(status.lastError ?? "?"))" }
        if status.prunedRuns > 0 { line += ", \(status.prunedPackages) packages of \(status.prunedRuns) runs pruned" }
        return [line]
    }
}

struct StatusStartError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
