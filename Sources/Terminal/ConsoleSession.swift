public import Coordination
public import DeviceRuns
import Foundation
import PicoLink

/// One console conversation: lines typed (or piped) become scripts, an empty line runs the script so
/// far; `help`, `:load FILE`, `:save FILE` and `:quit` are the console's own. Every run goes to the
/// `--csv` and `--jsonl` files, each with its own provenance (a run whose columns differ from the
/// table's gets a CSV file of its own, `NAME-runN.csv`), and is kept for `:save`. Ctrl-C during a run
/// aborts it and the console goes on. The result says whether a stop ended it and how many runs met
/// a device error (for `hcipico console`, exit 3: a piped script that fails is not a success).
public final class ConsoleSession {
    /// How a conversation ended.
    public enum Ending: Sendable, Equatable {
        /// A stop (a signal, a closed output) ended it.
        case stopped(StopReason)
        /// The input ended or `:quit` was typed; `deviceErrors` runs met a device error or could not start.
        case ended(deviceErrors: Int)
    }

    /// The runs: recorded into the files, kept for `:save`, stopped by a stop.
    public let runs: SessionRuns
    /// Where the typed lines come from.
    public let input: LineInput
    /// The script of a `:method` or `:run` line, or nil when it cannot be made (the closure says why).
    private let methodScript: (ConsoleInput) -> String?
    private var deviceErrors = 0

    /// What `help` prints.
    public static let help = """
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

    /// A console on `runs`, reading `input`; `methodScript` makes the script of a `:method FILE` or
    /// `:run NAME …` line as the program's own options would (and reports what is wrong).
    public init(runs: SessionRuns, input: LineInput, methodScript: @escaping (ConsoleInput) -> String?) {
        self.runs = runs
        self.input = input
        self.methodScript = methodScript
    }

    /// The conversation: `first` run first (checked unless `firstUnchecked`), then line after line until
    /// the input ends, `:quit`, or a stop.
    public func converse(first: String? = nil, firstUnchecked: Bool = false) async -> Ending {
        let version = runs.version
        print("\(version.device) \(version.firmware). Type a script; an empty line runs it; 'help' for more.")
        if let first {
            await runOne(first, checked: !firstUnchecked)
            if let reason = runs.stopReason { return .stopped(reason) }
        }
        var lines: [String] = []
        reading: while let line = await read(prompt: lines.isEmpty ? "mscript> " : "     ..> ") {
            input.remember(line)
            let typed = ConsoleInput(line, inScript: !lines.isEmpty)
            switch typed {
            case .help: print(Self.help)
            case .quit: break reading
            case .save(let path): save(to: path)
            case .load(let path): if let text = load(path) { await runOne(text) }
            case .methodFile, .method: if let text = methodScript(typed) { await runOne(text) }
            case .misuse(let message): StandardError.report(message)
            case .scriptLine(let line): lines.append(line)
            case .run:
                guard !lines.isEmpty else { continue }
                let text = lines.joined(separator: "\n")
                lines = []
                await runOne(text)
            }
            if let reason = runs.stopReason { return .stopped(reason) }
        }
        if !lines.isEmpty { StandardError.report("the last \(lines.count) lines were never run (no empty line)") }
        return .ended(deviceErrors: deviceErrors)
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
        let display = LiveDisplay(showTable: true, rowsPerSecond: 1000)
        // Ctrl-C stops this run only (`Z`; the link is closed if the device does not end its script),
        // and the console goes on.
        let runs = self.runs
        Shutdown.shared.onInterrupt {
            Task { await runs.abortRun(StopReason.signal(SIGINT).description) }
        }
        defer { Shutdown.shared.onInterrupt(nil) }
        do {
            let result = try await runs.run(script) { event in display.show(event) }
            display.finish()
            if let cell = result.end.cell { print(cell) }
            if result.deviceError { deviceErrors += 1 }
            let end = result.end
            print(end.complete ? "done: \(end.packages) packages" : "incomplete after \(end.packages) packages")
            if let analysis = result.analysis { display.report(analysis) }
            fflush(nil)
        } catch {
            StandardError.report("\(error)")
            deviceErrors += 1
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
    private func save(to path: String) {
        do {
            let packages = try runs.save(to: path)
            print("saved \(packages) packages to \(path)")
        } catch {
            StandardError.report(error.description)
        }
    }
}
