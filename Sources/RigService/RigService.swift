import Coordination
import DeviceLinks
import Logging
import PicoLink
import RigCore
import RigJournal
public import RigModel
import ServiceLifecycle
import UnixSignals

/// A rig, run as one swift-service-lifecycle `ServiceGroup`: its signals, the fleet side (the
/// forwarder, the status server), the journal's writer, the analysis of ended runs, the radio side
/// (adapters, shared hosts), the
/// systemd heartbeat, `--for`, and the devices, started in that order and shut down in the reverse
/// one once the devices' service ends (the first of a signal, `--for`, every schedule done, the
/// journal or the status server failing).
public enum RigService {
    /// What a rig is run with, besides its config.
    public struct Settings: Sendable {
        /// The config file, read again on SIGHUP.
        public var configPath: String
        /// Stop after this long, as SIGTERM would, but as an ending of its own.
        public var runFor: Duration?
        /// `hcipico 0.1.0`, for the records and the status page.
        public var toolVersion: String
        /// The secrets the config names, read before anything starts.
        public var secrets: RigFleet.Secrets
        /// The config as it reads now (nil when it has problems, which it reports): SIGHUP's reload.
        public var loadConfig: @Sendable () -> RigConfig?
        /// Log lines that could not be written, for `/metrics`.
        public var droppedLogLines: @Sendable () -> Int
        /// Ends the process at once when cleanup takes too long or a second signal comes: the first
        /// signal, and why.
        public var exitNow: @Sendable (StopReason, String) -> Never
        /// How long cleanup may take after the first signal.
        public var cleanupBound: Duration = .seconds(5)
        /// What every part of the rig times itself on (schedules, backoff, run timeouts, `--for`, the
        /// heartbeat, the forwarder, cleanup).
        public var clock: any TimeSource = SystemClock()

        /// Settings for the rig whose config is at `configPath`.
        public init(
            configPath: String,
            runFor: Duration?,
            toolVersion: String,
            secrets: RigFleet.Secrets,
            loadConfig: @escaping @Sendable () -> RigConfig?,
            droppedLogLines: @escaping @Sendable () -> Int,
            exitNow: @escaping @Sendable (StopReason, String) -> Never
        ) {
            self.configPath = configPath
            self.runFor = runFor
            self.toolVersion = toolVersion
            self.secrets = secrets
            self.loadConfig = loadConfig
            self.droppedLogLines = droppedLogLines
            self.exitNow = exitNow
        }
    }

    /// How a rig ended, for its summary and exit status.
    public struct Outcome: Sendable {
        /// Why it ended.
        public var ending: RigEnding
        /// Every device's state at the end.
        public var snapshots: [DeviceSnapshot]
        /// One line per adapter or controller the rig watched (what happened to it).
        public var adapters: [String]
        /// The forwarder's line, when one ran.
        public var fleet: [String]
        /// The journal's failure, when it failed.
        public var journalFailure: String?
    }

    /// The journal could not be opened: why.
    public struct JournalOpenError: Error, CustomStringConvertible {
        /// Why, with the journal's path.
        public var description: String
    }

    /// Runs the rig `config` describes until it ends.
    public static func run(
        _ config: RigConfig,
        settings: Settings,
        logger: Logger
    ) async throws(JournalOpenError) -> Outcome {
        // Signals are caught from here on: one that comes while the journal opens is kept, and ends
        // the rig cleanly as soon as the group runs.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup)
        let opened: Journal
        do {
            opened = try Journal.open(path: config.journal, rig: config.name)
        } catch {
            throw JournalOpenError(description: "\(error)")
        }
        for change in opened.renumbered {
            logger.notice("journal migrated: \(change), so that each device's run numbers are unique")
        }
        for run in opened.recovered {
            logger.warning(
                "run \(run.id) of \(run.device) (\(run.packages) packages) was left running by a previous process: closed as incomplete (rig restarted)"
            )
        }
        let writer = opened.writer()
        let ending = Latch<RigEnding>()
        let clock = settings.clock
        let connector = RigConnector(timeout: .seconds(20), logger: logger, clock: clock)
        let analyses = RunAnalyses(journal: opened, writer: writer, config: config, clock: clock, logger: logger)
        let rig = Rig(
            config: config,
            connector: connector,
            journal: JournalRecorder(journal: opened, writer: writer, analyses: analyses),
            clock: clock,
            logger: logger,
            toolVersion: settings.toolVersion,
            onFailure: { message in ending.settle(.journalFailed(message)) }
        )
        let fleet = RigFleet.make(
            config: config,
            secrets: settings.secrets,
            journal: opened,
            writer: writer,
            rig: rig,
            toolVersion: settings.toolVersion,
            droppedLogLines: settings.droppedLogLines,
            clock: clock,
            logger: logger
        )
        let notifier = ServiceNotifier()
        let statusStart = fleet.server.map { _ in Latch<StatusStart>() }
        var services: [any Service] = [
            RigSignalWatch(
                signals: signals,
                ending: ending,
                cleanupBound: settings.cleanupBound,
                clock: clock,
                reload: {
                    notifier.reloading()
                    await reload(rig, analyses: analyses, settings: settings, logger: logger)
                    notifier.ready(status: RigStatusLine.text(rig, writer: writer))
                },
                exitNow: settings.exitNow
            )
        ]
        if let server = fleet.server, let status = config.status, let statusStart {
            services.append(
                StatusService(
                    server: server,
                    host: status.host,
                    port: status.port,
                    tokenRequired: settings.secrets.token != nil,
                    started: statusStart,
                    logger: logger
                )
            )
        }
        if let forwarder = fleet.forwarder {
            services.append(ForwardingService(forwarder: forwarder, patience: .seconds(2), clock: clock))
        }
        services.append(JournalCommits(writer: writer))
        // Shut down after the devices (services end in the reverse order), to analyse their last runs.
        writer.onCommit { _ in analyses.committed() }
        services.append(AnalysisService(analyses: analyses, flush: { try? await writer.flush() }))
        services.append(RadioKeeping(adapters: connector.adapters, hosts: connector.hosts))
        if notifier.isActive {
            services.append(
                SystemdHeartbeat(notifier: notifier, rig: rig, writer: writer, ending: ending, clock: clock)
            )
        }
        if let runFor = settings.runFor {
            services.append(RunDeadline(duration: runFor, ending: ending, clock: clock))
        }
        services.append(
            DeviceSupervision(
                rig: rig,
                config: config,
                ending: ending,
                statusStart: statusStart,
                notifier: notifier,
                logger: logger
            )
        )
        let configurations = services.enumerated().map { index, service in
            ServiceGroupConfiguration.ServiceConfiguration(
                service: service,
                // The devices' end is the rig's; every other service runs until the shutdown reaches it.
                successTerminationBehavior: index == services.count - 1 ? .gracefullyShutdownGroup : .ignore
            )
        }
        var quiet = logger
        quiet.logLevel = .warning
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: configurations, logger: quiet))
        do {
            try await group.run()
        } catch {
            logger.error("rig: \(error)")
        }
        return Outcome(
            ending: ending.value ?? .schedulesDone,
            snapshots: rig.snapshots,
            adapters: connector.adapters.reports.map(\.summary)
                + connector.hosts.resetCounts.map { "controller on \($0.transport): \($0.resets) reset" },
            fleet: fleet.summary,
            journalFailure: (writer.failed.map { "\($0)" }) ?? rig.failure.map { "\(JournalError.writeFailed($0))" }
        )
    }

    /// SIGHUP: a config with problems is reported (by `loadConfig`) and changes nothing.
    static func reload(_ rig: Rig, analyses: RunAnalyses, settings: Settings, logger: Logger) async {
        logger.info("SIGHUP: reloading \(settings.configPath)")
        guard let config = settings.loadConfig() else {
            logger.error("\(settings.configPath): the config has problems (above); the rig goes on with the one it has")
            return
        }
        analyses.reloaded(config)
        let report = await rig.reload(config)
        if report.needsRestart.isEmpty {
            logger.info("reloaded: \(report)")
        } else {
            logger.warning("reloaded: \(report)")
        }
    }
}
