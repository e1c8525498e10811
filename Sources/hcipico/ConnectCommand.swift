import ArgumentParser
import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import MethodSCRIPT
import PicoLink
import RunResults
import Terminal

/// `hcipico connect sim`: connect, print the version, run one script, show it live and write the sinks.
struct ConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Connect to an EmStat Pico, run a MethodSCRIPT and record its data.",
        discussion: """
            DEVICE is a Bluetooth address (AA:BB:CC:DD:EE:FF; --random for a random address), reached \
            through the kernel's L2CAP socket (--transport kernel, the default) or through hcipico's own \
            HCI host (--transport user:hci0 | serial:DEV[@BAUD] | tcp:HOST:PORT, or HCIPICO_TRANSPORT); \
            or 'sim' (sim:pico), a simulated EmStat Pico in this process (real time; --fast for as fast as possible); \
            or tty:PATH[@BAUD], a Pico on a serial port (a USB-UART cable, 230400 baud by default; 'hcipico ports'). \
            Every output is checked before anything connects: an existing file is refused unless --overwrite. \
            Ctrl-C, SIGTERM, SIGHUP or a closed standard output abort the run with Z; what was received is \
            kept, synced and marked incomplete with the reason. Exit status: 0 complete, 3 device error, \
            4 connection lost, 5 timeout, 6 could not write an output, 10 no Bluetooth in the kernel, \
            11 no adapter, 12 adapter down, 13 no permission, 14 busy, 64 bad input, 129 SIGHUP, \
            130 Ctrl-C, 141 output closed, 143 SIGTERM.
            """
    )

    @OptionGroup var link: LinkOptions

    @OptionGroup var tuning: LinkTuningOptions

    @OptionGroup var limits: RunLimitOptions

    @OptionGroup var what: MethodOptions

    @Option(
        help: """
            Write CSV here ('-' for standard output): one row per point, a column per script variable \
            ('p [V]', 'c [A]' with status and range), the run's provenance as leading '#' lines.
            """
    )
    var csv: String?

    @Option(help: "The --csv layout: point (a row per data point, the default) or long (a row per value).")
    var format: CSVLayout = .point

    @Option(help: "Write the run as PSTrace exports CSV here (UTF-16 with BOM, six header lines).")
    var pstrace: String?

    @Option(help: "Write JSON Lines here ('-' for standard output).")
    var jsonl: String?

    @Option(help: "Write an SVG plot here.")
    var svg: String?

    @Option(
        help: """
            Capture every byte the device sent here, as the link carried it (the replies and the P lines):             a transcript 'hcipico decode FILE' reads.
            """
    )
    var raw: String?

    @Option(
        help:
            "Write CSV, JSON Lines, SVG and PSTrace CSV into this folder (made when missing), named DEVICE-TITLE-UTCSTART."
    )
    var out: String?

    @Flag(help: "Replace output files that exist already (refused otherwise).")
    var overwrite = false

    @Option(help: "When outputs are flushed to disk: package, interval (every second, the default) or end.")
    var sync: SyncMode = .interval

    @Flag(help: "Do not print the table of packages, nor the run's peaks or fit.")
    var quiet = false

    @Flag(
        name: .customLong("no-analysis"),
        help: "Do not analyse the run (peaks, circuit fit; a method file's [analysis] table says how)."
    )
    var noAnalysis = false

    @Flag(help: "Print to standard error how long the link took to open and the first sample to arrive.")
    var timing = false

    enum CSVLayout: String, ExpressibleByArgument, CaseIterable {
        case point, long
    }

    enum SyncMode: String, ExpressibleByArgument, CaseIterable {
        case package, interval, end

        var policy: SyncPolicy {
            switch self {
            case .package: .package
            case .interval: .default
            case .end: .end
            }
        }
    }

    func validate() throws {
        let target = try link.target()
        if case .simulator(let kind) = target, kind != .pico {
            throw ValidationError("connect runs MethodSCRIPT: sim:\(kind.rawValue) is not an EmStat Pico")
        }
        // A real cell is attached to a real device: nothing runs on it that the user did not choose.
        if case .radio = target, !what.isGiven {
            throw ValidationError(
                "say what to run on \(link.device): --script FILE, --technique NAME or --method FILE (the simulator alone runs a CV by default)"
            )
        }
    }

    func run() async throws {
        let started = Date()
        let (text, title) = try loadScript()
        let picoScript: PicoScript
        do {
            picoScript = try PicoScript(text, checked: !what.unchecked)
        } catch {
            StandardError.report("\(what.script ?? title): \(error)")
            throw ExitStatus.badInput.exitCode
        }
        let request: LinkRequest
        do {
            request = try link.request()
        } catch {
            StandardError.report(error.description)
            throw error.exitStatus.exitCode
        }
        let outputs = try checkedOutputs(title: title, started: started)
        let shutdown = Shutdown.shared
        shutdown.install(cleanupBound: .seconds(6))
        let job = ScriptRun(
            link: request,
            tuning: tuning.plan,
            script: picoScript,
            title: title,
            outputs: outputs,
            analysis: noAnalysis ? nil : try what.resolvedAnalysis(),
            timing: timing,
            limits: try limits.limits(),
            toolVersion: "hcipico \(HCIPico.configuration.version)",
            stop: shutdown
        )
        let (showTable, dataOnStandardOutput) = (!quiet, outputs.usesStandardOutput)
        let status = try await shutdown.run {
            let display = LiveDisplay(
                showTable: showTable,
                tableOnStandardError: dataOnStandardOutput,
                expectedPoints: ScriptExtent.expectedPoints(picoScript.lines)
            )
            return await job.perform(display: display).exitStatus
        }
        if status != ExitStatus.success { throw status.exitCode }
    }

    /// The outputs, checked: nothing exists that would be replaced without `--overwrite`, no output is
    /// the script or another output, and every directory is there. A problem is exit 64.
    private func checkedOutputs(title: String, started: Date) throws -> RunOutputs {
        var outputs = RunOutputs(
            csv: csv,
            jsonl: jsonl,
            svg: svg,
            pstrace: pstrace,
            raw: raw,
            longCSV: format == .long,
            overwrite: overwrite,
            sync: sync.policy
        )
        if let out {
            do {
                try OutputFolder.prepare(out)
            } catch {
                StandardError.report(error.description)
                throw ExitStatus.badInput.exitCode
            }
            let device = (try? link.target())?.fileNamePart ?? link.device
            outputs.name(in: out, device: device, title: title, start: started)
        }
        var named = outputs.named
        if let btsnoop = link.btsnoop { named.append(OutputCheck.Named("--btsnoop", btsnoop)) }
        do {
            try OutputCheck.check(outputs: named, inputs: what.inputs, overwrite: overwrite)
        } catch {
            StandardError.report(error.description)
            throw ExitStatus.badInput.exitCode
        }
        return outputs
    }

    private func loadScript() throws -> (text: String, title: String) {
        // The simulator alone runs the CV method's defaults when nothing is said.
        if let given = try what.scriptText() { return given }
        return (try Method(technique: .cv).script(), Technique.cv.rawValue)
    }
}
