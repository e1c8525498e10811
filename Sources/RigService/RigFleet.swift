import Coordination
import Foundation
import Logging
import RigCore
import RigForward
import RigJournal
import RigStatus

/// The rig's fleet side, as its config asks: the forwarder to PostgreSQL and the status server
/// (page, `/metrics`, `/healthz`), made here and run by `ForwardingService` and `StatusService`.
/// Secrets are read here, once, and go nowhere but to their use.
public final class RigFleet: Sendable {
    /// The forwarder, when `[forward.postgres]` is configured.
    public let forwarder: PostgresForwarder?
    /// The status server, when `[status]` is configured.
    let server: StatusServer?

    private init(forwarder: PostgresForwarder?, server: StatusServer?) {
        self.forwarder = forwarder
        self.server = server
    }

    /// Reads the secrets the config names (a problem is thrown as text, before anything starts).
    public struct Secrets: Sendable {
        var password: String?
        var token: String?
        var controlToken: String?

        /// The secrets `config` names, read now.
        public init(_ config: RigConfig) throws(SecretFileError) {
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
            if let file = config.status?.controlTokenFile { controlToken = try SecretFile.read(file) }
        }
    }

    /// Makes what the config asks for; nothing runs yet.
    static func make(
        config: RigConfig,
        secrets: Secrets,
        journal: Journal,
        writer: JournalWriter,
        rig: Rig,
        toolVersion: String,
        droppedLogLines: @escaping @Sendable () -> Int,
        clock: any TimeSource,
        logger: Logger
    ) -> RigFleet {
        var forwarder: PostgresForwarder?
        var server: StatusServer?
        if let forward = config.forward {
            let started = PostgresForwarder(
                journal: journal,
                rig: config.name,
                config: forward,
                password: secrets.password,
                logger: logger,
                clock: clock
            )
            writer.onCommit { _ in started.wake() }
            logger.info(
                "forward: to \(forward.url)\(forward.retention.map { ", journal retention \(DurationText.text($0))" } ?? "")"
            )
            forwarder = started
        }
        if let status = config.status {
            let forwarderStatus = forwarder
            let sources = StatusSources(
                rig: config.name,
                version: toolVersion,
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
                droppedLogLines: droppedLogLines
            )
            server = StatusServer(
                sources: sources,
                host: status.host,
                port: status.port,
                token: secrets.token,
                control: StatusServer.Control(rig: rig, token: secrets.controlToken),
                clock: clock,
                logger: logger
            )
        }
        return RigFleet(forwarder: forwarder, server: server)
    }

    /// Lines for the rig's end summary.
    public var summary: [String] {
        guard let forwarder else { return [] }
        let status = forwarder.status
        var line =
            "forward: \(status.forwardedPackages) packages to \(forwarder.target) this run, \(status.lagPackages) waiting"
        if status.errors > 0 { line += ", \(status.errors) errors (last: \(status.lastError ?? "?"))" }
        if status.prunedRuns > 0 { line += ", \(status.prunedPackages) packages of \(status.prunedRuns) runs pruned" }
        return [line]
    }
}
