import ArgumentParser
import Coordination
import DeviceLinks
import DeviceRuns
import Foundation
import MethodSCRIPT
import PicoAnalysis
import PicoLink
import RunResults

/// One console conversation: lines typed (or piped) become scripts, an empty line runs the script so
/// far; `help`, `:load FILE`, `:save FILE` and `:quit` are the console's own. Every run goes to the
/// `--csv` and `--jsonl` files, each with its own provenance (a run whose columns differ from the
/// table's gets a CSV file of its own, `NAME-runN.csv`), and is kept for `:save`. Ctrl-C during a run
/// aborts it and the console goes on. The result is the console's exit status: 0, or 3 when a run
/// met a device error (so a piped script that fails is not a success).
final class ConsoleSession {
    let session: PicoSession
    let link: OpenedPico
    let target: DeviceTarget
    let version: PicoVersion
    let serial: String?
    /// A script the device was still running when the console connected: the first run's record says so.
    private var foundAtConnect: LeftoverScript?
    /// The limits every run is stopped at.
    let limits: RunLimits
    let input = LineInput()
    /// The `--csv` and `--jsonl` paths; their files are opened when the first run starts and fed
    /// every run.
    let outputs: (csv: String?, jsonl: String?, overwrite: Bool)
    /// The last run's table sink (the next run continues its table) and the JSON Lines file.
    private var table: PointCSVSink?
    private var jsonLines: SinkFile?
    /// Every file opened so far, synced when the console ends.
    private var files: [SinkFile] = []
    let memory = RunMemory()
    let stop = ConsoleStop()
    private var runs = 0
    private var deviceErrors = 0

    static let help = """
        Type MethodSCRIPT lines; an empty line sends them as one script and shows its packages.
          help          this text
          :load FILE    run the script in FILE (as if typed, then an empty line)
          :method FILE  run the method in a TOML file (technique = "cv" and its parameters)
          :run NAME [KEY=VALUE …]
                        run a method: a technique and its parameters ('hcipico methods NAME')
          :save FILE    write the last run: FILE.csv (a row per point), .jsonl, .pstrace.csv or .svg
          :quit         leave (as does Ctrl-D on an empty line)
        Ctrl-C clears the line being typed; during a run it aborts the run (Z), which is kept.
        Up and Down recall earlier lines, also those of earlier sessions.
        """

    init(
        session: PicoSession,
        link: OpenedPico,
        target: DeviceTarget,
        version: PicoVersion,
        serial: String?,
        foundAtConnect: LeftoverScript? = nil,
        limits: RunLimits = RunLimits(),
        outputs: (csv: String?, jsonl: String?, overwrite: Bool)
    ) {
        self.limits = limits
        self.foundAtConnect = foundAtConnect
        self.session = session
        self.link = link
        self.target = target
        self.version = version
        self.serial = serial
        self.outputs = outputs
    }

    /// Runs `first` (the script of the command line's --script, --technique or --method) if any, then
    /// reads and runs until the end of input or `:quit`; returns the exit status.
    func converse(first: String? = nil, firstUnchecked: Bool = false) async -> ExitStatus {
        print("\(version.device) \(version.firmware). Type a script; an empty line runs it; 'help' for more.")
        if let first {
            await runOne(first, checked: !firstUnchecked)
            if let reason = stop.reason { return reason.exitStatus }
        }
        var lines: [String] = []
        while let line = await read(prompt: lines.isEmpty ? "mscript> " : "     ..> ") {
            input.remember(line)
            let command = line.trimmingCharacters(in: .whitespaces)
            if lines.isEmpty, command == "help" || command == ":help" {
                print(Self.help)
                continue
            }
            if lines.isEmpty, command == ":quit" { break }
            if lines.isEmpty, command == ":save" || command.hasPrefix(":save ") {
                save(to: String(command.dropFirst(5)).trimmingCharacters(in: .whitespaces))
                continue
            }
            if lines.isEmpty, let text = method(command) {
                if let text = text {
                    await runOne(text)
                    if let reason = stop.reason { return reason.exitStatus }
                }
                continue
            }
            if lines.isEmpty, command == ":load" || command.hasPrefix(":load ") {
                if let text = load(String(command.dropFirst(5)).trimmingCharacters(in: .whitespaces)) {
                    await runOne(text)
                    if let reason = stop.reason { return reason.exitStatus }
                }
                continue
            }
            if !line.isEmpty {
                lines.append(line)
                continue
            }
            guard !lines.isEmpty else { continue }
            let text = lines.joined(separator: "\n")
            lines = []
            await runOne(text)
            if let reason = stop.reason { return reason.exitStatus }
        }
        if !lines.isEmpty { StandardError.report("the last \(lines.count) lines were never run (no empty line)") }
        return deviceErrors > 0 ? .deviceError : .success
    }

    /// A line read off the cooperative pool (the editor blocks its thread).
    private func read(prompt: String) async -> String? {
        let input = self.input
        return await Threads.blocking(name: "console-input") { input.read(prompt: prompt) } ?? nil
    }

    private func runOne(_ text: String, checked: Bool = true) async {
        let script: PicoScript
        do {
            script = try PicoScript(text, checked: checked)
        } catch {
            StandardError.report("script: \(error)")
            deviceErrors += 1
            return
        }
        runs += 1
        let provenance = RunProvenance(
            runOn: link,
            target: target,
            version: version,
            serial: serial,
            title: "console-\(runs)",
            script: script,
            deviceRun: runs,
            foundAtConnect: foundAtConnect,
            toolVersion: "hcipico \(HCIPico.configuration.version)"
        )
        foundAtConnect = nil
        memory.start(provenance: provenance)
        let files: [any SampleSink]
        do {
            files = try openedSinks(provenance: provenance)
        } catch {
            StandardError.report("\(error)")
            deviceErrors += 1
            return
        }
        let display = LiveDisplay(showTable: true, rowsPerSecond: 1000)
        let control = stop.runStarted(on: session, limits: limits)
        // The run's peaks or circuit fit, made as it ends: printed after it, and in its files' end.
        let recording = ControlledRecording(
            control: control,
            script: script,
            sinks: files + [memory],
            analysis: AnalysisSettings()
        )
        // Ctrl-C stops this run only (`Z`; the link is closed if the device does not end its script),
        // and the console goes on.
        Shutdown.shared.onInterrupt {
            Task { await control.stop(StopReason.signal(SIGINT).description) }
        }
        defer {
            Shutdown.shared.onInterrupt(nil)
            stop.runEnded()
        }
        do {
            let run = try await session.run(script, title: "console-\(runs)")
            let end = try await recording.record(run) { event in display.show(event) }
            display.finish()
            if let cell = end.cell { print(cell) }
            if !recording.recorder.deviceErrors.isEmpty { deviceErrors += 1 }
            print(end.complete ? "done: \(end.packages) packages" : "incomplete after \(end.packages) packages")
            if let results = recording.analysis?.results {
                print(AnalysisReport(analyses: [results], names: ["the run"]).text)
            }
            fflush(nil)
        } catch {
            StandardError.report("\(error)")
            deviceErrors += 1
        }
    }

    /// The sinks of one run: the `--csv` table (the first run opens it; later ones continue it, or
    /// open `NAME-runN.csv` when their columns differ) and the `--jsonl` file, each run with its own
    /// provenance (its `#` lines, its start event).
    private func openedSinks(provenance: RunProvenance) throws(SinkError) -> [any SampleSink] {
        var sinks: [any SampleSink] = []
        if let path = outputs.csv {
            let sink: PointCSVSink
            if let table {
                let number = runs
                sink = table.nextRun(provenance: provenance) { [self] () throws(SinkError) -> SinkFile in
                    let own = Self.runPath(path, number)
                    let file = try SinkFile(path: own, overwrite: outputs.overwrite)
                    files.append(file)
                    print("run \(number) has other columns than \(path): its table goes to \(own)")
                    return file
                }
            } else {
                let file = try SinkFile(path: path, overwrite: outputs.overwrite)
                files.append(file)
                sink = PointCSVSink(file: file, provenance: provenance)
            }
            table = sink
            sinks.append(sink)
        }
        if let path = outputs.jsonl {
            let file: SinkFile
            if let jsonLines {
                file = jsonLines
            } else {
                file = try SinkFile(path: path, overwrite: outputs.overwrite)
                files.append(file)
                jsonLines = file
            }
            sinks.append(JSONLinesSink(file: file, provenance: provenance))
        }
        return sinks
    }

    /// `runs.csv` → `runs-run2.csv` (a name without `.csv` gets `-run2` at its end).
    static func runPath(_ path: String, _ run: Int) -> String {
        path.hasSuffix(".csv") ? "\(path.dropLast(4))-run\(run).csv" : "\(path)-run\(run)"
    }

    /// `:method FILE` or `:run NAME KEY=VALUE …`: `.some(script)` to run, `.some(nil)` when the method was
    /// refused (reported, each problem named); nil when `command` is neither.
    private func method(_ command: String) -> String?? {
        let words = command.split(separator: " ").map(String.init)
        var arguments: [String]
        switch words.first {
        case ":method":
            guard words.count == 2 else {
                StandardError.report(":method needs one file name")
                return .some(nil)
            }
            arguments = ["--method", words[1]]
        case ":run":
            guard words.count >= 2 else {
                StandardError.report(":run needs a technique ('hcipico methods' lists them)")
                return .some(nil)
            }
            guard Technique(argument: words[1]) != nil else {
                StandardError.report(":run: \(MethodError.unknownTechnique(words[1]))")
                return .some(nil)
            }
            arguments = ["--technique", words[1]] + words.dropFirst(2).flatMap { ["--set", $0] }
        default: return nil
        }
        do {
            let options = try MethodOptions.parse(arguments)
            guard let method = try options.resolvedMethod() else { return .some(nil) }
            return .some(try method.script())
        } catch {
            if !(error is ExitCode) { StandardError.report("\(words[0]): \(MethodOptions.oneLine(error))") }
            return .some(nil)
        }
    }

    /// `:load FILE`: the script's text, or nil (reported) when it cannot be read.
    private func load(_ path: String) -> String? {
        guard !path.isEmpty else {
            StandardError.report(":load needs a file name")
            return nil
        }
        do {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            print("loaded \(path)")
            return text
        } catch {
            StandardError.report(":load \(path): cannot read it (\(error.localizedDescription))")
            return nil
        }
    }

    /// Makes the files durable (at the end of the console).
    func syncFiles() {
        for file in files { try? file.sync() }
    }

    /// `:save FILE`: the last run in the format the name says; an existing file is never replaced.
    private func save(to path: String) {
        guard !path.isEmpty else { return StandardError.report(":save needs a file name") }
        guard memory.end != nil else { return StandardError.report(":save: no run yet") }
        guard !FileManager.default.fileExists(atPath: path) else {
            return StandardError.report(":save \(path): exists; choose another name")
        }
        do {
            let sink: any SampleSink =
                if path.hasSuffix(".jsonl") {
                    try JSONLinesSink(path: path, provenance: memory.provenance)
                } else if path.hasSuffix(".pstrace.csv") {
                    try PSTraceSink(path: path, provenance: memory.provenance)
                } else if path.hasSuffix(".svg") {
                    SVGSink(path: path, refreshInterval: .infinity, provenance: memory.provenance)
                } else {
                    try PointCSVSink(path: path, provenance: memory.provenance)
                }
            try memory.replay(into: sink)
            try sink.sync()
            print("saved \(memory.packages.count) packages to \(path)")
        } catch {
            StandardError.report(":save \(path): \(error)")
        }
    }
}
