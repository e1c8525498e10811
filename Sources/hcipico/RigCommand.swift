import ArgumentParser
import BLELinux
import Foundation
import Logging
import RigCore
import RigJournal

/// `hcipico rig CONFIG`: several instruments on a schedule into the journal, until stopped.
struct RigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rig",
        abstract: "Run several instruments on their schedules into a crash-safe SQLite journal.",
        discussion: """
            CONFIG is a TOML file (see Examples/rig.toml): the rig's name and journal, and one [[device]] \
            table per instrument with its address, transport, script and schedule. The whole config is \
            checked first; every problem is reported with its file, line and key (exit 64).

            SIGTERM or SIGINT aborts running scripts, closes their runs as incomplete ("stopped") and exits \
            (143 or 130); SIGHUP reloads the config: added devices start, removed ones stop after closing \
            their run, a changed schedule, timeout or script applies from the device's next run, a changed \
            address, transport, link or security reconnects once the run in progress has ended; a changed \
            name, journal, [status] or [forward.postgres] is not applied (the log says a restart is needed). A journal that cannot be written stops the rig \
            with exit 6. Runs a previous process left open (kill -9, power cut) are closed as incomplete \
            ("rig restarted") when the rig starts.
            """
    )

    @Argument(help: "The rig's config (TOML).")
    var config: String

    @Option(help: "The journal (SQLite) to record into, instead of the config's.")
    var journal: String?

    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("Stop after this long (30s, 10m, 2h), as SIGTERM would, but exit 0.", valueName: "duration")
    )
    var duration: String?

    @Flag(help: "Check the config and exit (0 when it is good).")
    var check = false

    @OptionGroup var log: LogOptions

    func validate() throws {
        if let duration, DurationText.seconds(duration) == nil {
            throw ValidationError("--for '\(duration)' is not a duration (30s, 10m, 2h)")
        }
    }

    func run() async throws {
        let config = try Self.load(self.config, journal: journal, checkingListenAddress: check)
        if check {
            let devices = CountText.of(config.devices.count, "device")
            print("\(self.config): good: rig \(config.name), \(devices), journal \(config.journal)")
            return
        }
        let secrets: RigFleet.Secrets
        do throws(SecretFileError) {
            secrets = try RigFleet.Secrets(config)
        } catch {
            StandardError.report("\(self.config): \(error)")
            throw ExitStatus.badInput.exitCode
        }
        log.apply()
        let logger = Logger(label: "hcipico.rig")
        // Signals are caught from here on: one that comes while the journal opens or the status server
        // starts is kept, and ends the rig cleanly as soon as it runs.
        let shutdown = Shutdown.shared
        shutdown.install(cleanupBound: .seconds(5))
        let opened: Journal
        do {
            opened = try Journal.open(path: config.journal, rig: config.name)
        } catch {
            StandardError.report("\(error)")
            throw ExitStatus.writeFailed.exitCode
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
        let ending = RigEnding()
        let connector = RigConnector(timeout: .seconds(20), logger: logger)
        let adapterWatch = Task { await connector.adapters.run() }
        let rig = Rig(
            config: config,
            connector: connector,
            journal: JournalRecorder(writer: writer),
            logger: logger,
            toolVersion: "hcipico \(HCIPico.configuration.version)",
            onFailure: { message in ending.end(.journalFailed(message)) }
        )
        shutdown.onStop { reason in ending.end(.signal(reason)) }
        let configPath = self.config
        let journalOverride = journal
        let notifier = ServiceNotifier()
        shutdown.onHangUp {
            Task {
                notifier.reloading()
                await Self.reload(rig, from: configPath, journal: journalOverride, logger: logger)
                notifier.ready(status: Self.status(rig, writer: writer))
            }
        }
        let fleet: RigFleet
        do {
            fleet = try await RigFleet.start(
                config: config,
                secrets: secrets,
                journal: opened,
                writer: writer,
                rig: rig,
                logger: logger
            )
        } catch {
            await writer.close()
            if let problem = config.status?.listenProblem() {
                StandardError.report("\(self.config): status.listen: \(problem)")
                throw ExitStatus.addressInUse.exitCode
            }
            StandardError.report("\(error)")
            throw ExitStatus.failure.exitCode
        }
        logger.info("rig \(config.name): \(CountText.of(config.devices.count, "device")), journal \(config.journal)")
        rig.start()
        notifier.ready(
            status: "\(CountText.of(config.devices.count, "device")) starting, journal \(config.journal)"
        )
        let heartbeat = notifier.isActive ? Task { await Self.heartbeat(notifier, rig: rig, writer: writer) } : nil
        if let duration, let seconds = DurationText.seconds(duration) {
            Task {
                try await Task.sleep(for: .seconds(seconds))
                ending.end(.duration)
            }
        }
        Task {
            await rig.finished()
            ending.end(.schedulesDone)
        }
        let why = await ending.wait()
        heartbeat?.cancel()
        notifier.stopping("\(why)")
        logger.info("rig \(config.name): stopping (\(why))")
        await rig.stop(reason: why.runReason)
        adapterWatch.cancel()
        await connector.hosts.shutdown()
        await writer.close()
        await fleet.stop()
        RigSummary(
            snapshots: rig.snapshots,
            adapters: connector.adapters.reports.map(\.summary)
                + connector.hosts.resetCounts.map { "controller on \($0.transport): \($0.resets) reset" },
            fleet: fleet.summary,
            journal: config.journal
        ).print()
        if let failure = writer.failed ?? rig.failure.map({ JournalError.writeFailed($0) }) {
            StandardError.report("\(failure)")
            throw ExitStatus.writeFailed.exitCode
        }
        if case .signal(let reason) = why { throw reason.exitStatus.exitCode }
    }

    /// Reads and checks the config (with `journal` in place of its journal, when given); prints every
    /// problem and exits 64 when there are any.
    static func load(_ path: String, journal: String? = nil, checkingListenAddress: Bool = false) throws -> RigConfig {
        let parser = RigConfigParser(
            transportCheck: { transport in
                do throws(ArgumentSyntaxError) {
                    _ = try TransportSpec(parsing: transport)
                    return nil
                } catch {
                    return "\(error)"
                }
            },
            journalOverride: journal,
            checksListenAddress: checkingListenAddress
        )
        do throws(ConfigProblems) {
            return try parser.parse(file: path)
        } catch {
            for problem in error.problems { StandardError.report(problem.description) }
            throw ExitStatus.badInput.exitCode
        }
    }

    /// Under systemd: a STATUS line every so often, with a WATCHDOG ping as long as the journal keeps
    /// committing (a writer that failed or has been behind for 10 s gets no ping, so systemd restarts
    /// the rig); every half `WatchdogSec=`, or every 10 s without a watchdog.
    static func heartbeat(_ notifier: ServiceNotifier, rig: Rig, writer: JournalWriter) async {
        let interval = notifier.watchdogInterval ?? .seconds(10)
        while (try? await Task.sleep(for: interval)) != nil {
            let stalled = writer.stalledFor
            if let failure = writer.failed {
                notifier.status("journal failed: \(failure)")
            } else if stalled >= 10 {
                notifier.status("journal stalled for \(Int(stalled)) s")
            } else {
                notifier.alive(status: status(rig, writer: writer))
            }
        }
    }

    /// `3 devices: 1 running, 2 idle, 0 away; 1234 packages committed`: the count is the journal's,
    /// so it never includes a package that is not yet durable.
    static func status(_ rig: Rig, writer: JournalWriter) -> String {
        let devices = rig.snapshots
        let running = devices.filter { if case .running = $0.state { true } else { false } }.count
        let away = devices.filter { !$0.connected }.count
        return
            "\(CountText.of(devices.count, "device")): \(running) running, \(devices.count - running - away) idle, \(away) away; "
            + "\(writer.committedPackages) packages committed"
    }

    /// SIGHUP: a config with problems is reported and changes nothing.
    static func reload(_ rig: Rig, from path: String, journal: String?, logger: Logger) async {
        logger.info("SIGHUP: reloading \(path)")
        guard let config = try? load(path, journal: journal) else {
            logger.error("\(path): the config has problems (above); the rig goes on with the one it has")
            return
        }
        let report = await rig.reload(config)
        if report.needsRestart.isEmpty {
            logger.info("reloaded: \(report)")
        } else {
            logger.warning("reloaded: \(report)")
        }
    }
}
