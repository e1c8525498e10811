import ArgumentParser
import BLELinux
import Foundation
import Logging
import RigCore
import RigService
import Terminal

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
        let (path, override) = (self.config, journal)
        let settings = RigService.Settings(
            configPath: path,
            runFor: duration.flatMap(DurationText.seconds).map { .seconds($0) },
            toolVersion: "hcipico \(HCIPico.configuration.version)",
            secrets: secrets,
            loadConfig: { try? Self.load(path, journal: override) },
            droppedLogLines: { StandardError.dropped.load(ordering: .relaxed) },
            exitNow: { reason, why in
                StandardError.report("\(reason): \(why); exiting now")
                _exit(reason.exitStatus.rawValue)
            }
        )
        let outcome: RigService.Outcome
        do {
            outcome = try await RigService.run(config, settings: settings, logger: Logger(label: "hcipico.rig"))
        } catch {
            StandardError.report("\(error)")
            throw ExitStatus.writeFailed.exitCode
        }
        if case .statusFailed(let message) = outcome.ending {
            if let problem = config.status?.listenProblem() {
                StandardError.report("\(self.config): status.listen: \(problem)")
                throw ExitStatus.addressInUse.exitCode
            }
            StandardError.report(message)
            throw ExitStatus.failure.exitCode
        }
        let dropped = StandardError.dropped.load(ordering: .relaxed)
        print(outcome.summary(journal: config.journal, droppedLogLines: dropped))
        if let failure = outcome.journalFailure {
            StandardError.report(failure)
            throw ExitStatus.writeFailed.exitCode
        }
        if case .signal(let reason) = outcome.ending { throw reason.exitStatus.exitCode }
    }

    /// Reads and checks the config (with `journal` in place of its journal, when given); prints every
    /// problem and exits 64 when there are any.
    static func load(_ path: String, journal: String? = nil, checkingListenAddress: Bool = false) throws -> RigConfig {
        let parser = RigConfigParser(journalOverride: journal, checksListenAddress: checkingListenAddress)
        do throws(ConfigProblems) {
            return try parser.parse(file: path)
        } catch {
            for problem in error.problems { StandardError.report(problem.description) }
            throw ExitStatus.badInput.exitCode
        }
    }
}
