import ArgumentParser
import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import PicoLink
import Terminal

/// `hcipico console DEVICE`: type a MethodSCRIPT, an empty line runs it (`ConsoleSession`, Terminal): line
/// editing and history on a terminal, `help`, `:save FILE`, `--csv`/`--jsonl` for every run. A signal
/// during a run (Ctrl-C, SIGTERM, SIGHUP) aborts it with `Z`, disconnects and quits with its status;
/// end of input quits, with 3 when a run met a device error.
struct ConsoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Interactive MethodSCRIPT console: type a script, an empty line runs it; 'help' for more.",
        discussion: """
            On a terminal: line editing, Up/Down history, Ctrl-C clears the line (and aborts a run). \
            ':save FILE' writes the last run (.csv per point, .jsonl, .pstrace.csv, .svg). Piped input \
            runs each script in turn and exits 3 when one met a device error.
            """
    )

    @OptionGroup var link: LinkOptions

    @OptionGroup var limits: RunLimitOptions

    @OptionGroup(title: "A first run, before the prompt") var what: MethodOptions

    @Option(help: "Write every run here as CSV, a row per point, with its provenance ('-' is not allowed).")
    var csv: String?

    @Option(help: "Write every run here as JSON Lines.")
    var jsonl: String?

    @Flag(help: "Replace output files that exist already (refused otherwise).")
    var overwrite = false

    func validate() throws {
        if case .simulator(let kind) = try link.target(), kind != .pico {
            throw ValidationError("console speaks MethodSCRIPT: sim:\(kind.rawValue) is not an EmStat Pico")
        }
        if csv == "-" || jsonl == "-" { throw ValidationError("the console's outputs are files, not standard output") }
    }

    func run() async throws {
        let named = [("--csv", csv), ("--jsonl", jsonl)].compactMap { option, path in
            path.map { OutputCheck.Named(option, $0) }
        }
        // What the command line says to run first is checked before anything connects.
        let first = try what.scriptText()
        if let first {
            do {
                _ = try PicoScript(first.text, checked: !what.unchecked)
            } catch {
                StandardError.report("\(what.script ?? first.title): \(error)")
                throw ExitStatus.badInput.exitCode
            }
        }
        do {
            try OutputCheck.check(outputs: named, inputs: what.inputs, overwrite: overwrite)
        } catch {
            StandardError.report(error.description)
            throw ExitStatus.badInput.exitCode
        }
        let target = try link.target()
        let opened: OpenedPico
        do {
            opened = try await link.openPico()
        } catch {
            StandardError.report(error.description)
            throw error.exitStatus.exitCode
        }
        let status = await converse(with: opened.session, link: opened, target: target, first: first?.text)
        await opened.close()
        if status != .success { throw status.exitCode }
    }

    private func converse(
        with session: PicoSession,
        link opened: OpenedPico,
        target: DeviceTarget,
        first: String?
    ) async -> ExitStatus {
        let taken: TakenOverPico
        do {
            taken = try await opened.takeOver(
                askingSerial: true,
                security: self.link.security,
                logger: ReportLogHandler.logger
            )
        } catch {
            StandardError.report(error.description)
            return error.error.exitStatus
        }
        let runs = SessionRuns(
            link: opened,
            target: target,
            version: taken.version,
            serial: taken.serial,
            foundAtConnect: taken.leftover,
            limits: (try? limits.limits()) ?? RunLimits(),
            files: SessionRuns.Files(csv: csv, jsonl: jsonl, overwrite: overwrite),
            toolVersion: "hcipico \(HCIPico.configuration.version)",
            note: { print($0) }
        )
        let input = LineInput(historyPath: LineInput.historyPath(program: "hcipico"))
        let console = ConsoleSession(runs: runs, input: input, methodScript: Self.methodScript)
        let shutdown = Shutdown.shared
        shutdown.install()
        // A stop during a run stops it and waits for it to be recorded to its end; then the console
        // leaves (SessionRuns.stop). At the prompt of a terminal Ctrl-C is a key that clears the line (the
        // editor reads it), so a stop there came from elsewhere: the console leaves at once.
        shutdown.onStop { reason in
            Task {
                await runs.stop(reason)
                await Shutdown.bounded(.seconds(2)) { session.close() }
                Foundation.exit(reason.exitStatus.rawValue)
            }
        }
        let ending = await console.converse(first: first, firstUnchecked: what.unchecked)
        runs.syncFiles()
        switch ending {
        case .stopped(let reason): return reason.exitStatus
        case .ended(let deviceErrors): return deviceErrors > 0 ? .deviceError : .success
        }
    }

    /// The script of a `:method FILE` or `:run NAME KEY=VALUE…` line, made as `--method` or `--technique`
    /// and `--set` would make it; nil when it cannot be (told on standard error as that line's problem).
    static func methodScript(for typed: ConsoleInput) -> String? {
        let (command, arguments): (String, [String])
        switch typed {
        case .methodFile(let path): (command, arguments) = (":method", ["--method", path])
        case .method(let technique, let settings):
            (command, arguments) = (":run", ["--technique", technique.rawValue] + settings.flatMap { ["--set", $0] })
        default: return nil
        }
        do {
            return try MethodOptions.parse(arguments).resolvedMethod()?.script()
        } catch {
            if !(error is ExitCode) { StandardError.report("\(command): \(MethodOptions.oneLine(error))") }
            return nil
        }
    }
}
