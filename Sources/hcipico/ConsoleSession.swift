import Foundation
import PicoLink

/// One console conversation: lines typed (or piped) become scripts, an empty line runs the script so
/// far; `help`, `:save FILE` and `:quit` are the console's own. Every run goes to the `--csv` and
/// `--jsonl` files and is kept for `:save`. The result is the console's exit status: 0, or 3 when a
/// run met a device error (so a piped script that fails is not a success).
final class ConsoleSession {
    let session: PicoSession
    let link: ConnectedDevice
    let target: DeviceTarget
    let version: PicoVersion
    let serial: String?
    let input = LineInput()
    /// The `--csv` and `--jsonl` paths; their files are opened when the first run starts (with its
    /// provenance) and fed every run.
    let outputs: (csv: String?, jsonl: String?, overwrite: Bool)
    private(set) var sinks: [any SampleSink]?
    let memory = RunMemory()
    let stop = ConsoleStop()
    private var runs = 0
    private var deviceErrors = 0

    static let help = """
        Type MethodSCRIPT lines; an empty line sends them as one script and shows its packages.
          help          this text
          :save FILE    write the last run: FILE.csv (a row per point), .jsonl, .pstrace.csv or .svg
          :quit         leave (as does Ctrl-D on an empty line)
        Ctrl-C clears the line being typed; during a run it aborts the run (Z) and leaves.
        Up and Down recall earlier lines.
        """

    init(
        session: PicoSession,
        link: ConnectedDevice,
        target: DeviceTarget,
        version: PicoVersion,
        serial: String?,
        outputs: (csv: String?, jsonl: String?, overwrite: Bool)
    ) {
        self.session = session
        self.link = link
        self.target = target
        self.version = version
        self.serial = serial
        self.outputs = outputs
    }

    /// Reads and runs until the end of input or `:quit`; returns the exit status.
    func converse() async -> ExitStatus {
        print("\(version.device) \(version.firmware). Type a script; an empty line runs it; 'help' for more.")
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
        return await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let thread = Thread { continuation.resume(returning: input.read(prompt: prompt)) }
            thread.start()
        }
    }

    private func runOne(_ text: String) async {
        let script: PicoScript
        do {
            script = try PicoScript(text)
        } catch {
            StandardError.report("script: \(error)")
            deviceErrors += 1
            return
        }
        runs += 1
        let provenance = CommandProvenance.make(
            target: target,
            link: link,
            version: version,
            serial: serial,
            title: "console-\(runs)",
            script: script,
            deviceRun: runs
        )
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
        let recorder = RunRecorder(sinks: files + [memory], interruption: stop.runStarted())
        defer { stop.runEnded() }
        do {
            let run = try await session.run(script, title: "console-\(runs)")
            let end = try await recorder.record(run) { display.show($0) }
            display.finish()
            if !recorder.deviceErrors.isEmpty { deviceErrors += 1 }
            print(end.complete ? "done: \(end.packages) packages" : "incomplete after \(end.packages) packages")
        } catch {
            StandardError.report("\(error)")
            deviceErrors += 1
        }
    }

    /// The `--csv` and `--jsonl` sinks, opened for the first run with its provenance (later runs add
    /// their rows, their run number in the `run` column).
    private func openedSinks(provenance: RunProvenance) throws(SinkError) -> [any SampleSink] {
        if let sinks { return sinks }
        var opened: [any SampleSink] = []
        if let csv = outputs.csv {
            opened.append(try PointCSVSink(path: csv, overwrite: outputs.overwrite, provenance: provenance))
        }
        if let jsonl = outputs.jsonl {
            opened.append(try JSONLinesSink(path: jsonl, overwrite: outputs.overwrite, provenance: provenance))
        }
        sinks = opened
        return opened
    }

    /// Makes the files durable (at the end of the console).
    func syncFiles() {
        for sink in sinks ?? [] { try? sink.sync() }
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
