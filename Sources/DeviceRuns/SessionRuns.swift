public import Coordination
public import DeviceLinks
import Foundation
public import PicoAnalysis
public import PicoLink
import RunResults
import Synchronization

/// The runs of one open Pico, one after another, as the console makes them: each recorded under the
/// run's limits into the session's files (`csv`, `jsonl`: opened at the first run, fed by every run,
/// each run with its own provenance; a run whose columns differ from the table's gets a CSV file of its
/// own, `NAME-runN.csv`), analysed as it ends, and kept in memory for `save(to:)`.
///
/// A stop (`stop(_:)`) during a run stops it (`Z`, the link closed if the device does not end its
/// script) and returns once it is recorded to its end; `abortRun(_:)` stops the run in progress only.
public final class SessionRuns: @unchecked Sendable {
    /// The session's files: where every run goes.
    public struct Files: Sendable {
        /// Every run as a per-point CSV table (nil: none).
        public var csv: String?
        /// Every run as JSON Lines (nil: none).
        public var jsonl: String?
        /// Whether files that exist may be replaced.
        public var overwrite: Bool

        /// The session's files; none by default.
        public init(csv: String? = nil, jsonl: String? = nil, overwrite: Bool = false) {
            self.csv = csv
            self.jsonl = jsonl
            self.overwrite = overwrite
        }
    }

    /// How one run went.
    public struct Result: Sendable {
        /// How it ended, as its files were told.
        public let end: RunEnd
        /// Whether the device reported an error during it.
        public let deviceError: Bool
        /// Its peaks or circuit fit (nil when it has none).
        public let analysis: RunAnalysis?
    }

    /// The open Pico the runs are on.
    public let link: OpenedPico
    /// How it was named, for the provenance.
    public let target: DeviceTarget
    /// Its version reply.
    public let version: PicoVersion
    /// Its serial number (nil when it gave none).
    public let serial: String?
    /// The limits every run is stopped at.
    public let limits: RunLimits
    /// Where every run goes.
    public let files: Files
    /// The program and its version, for the provenance.
    public let toolVersion: String
    /// Where the session says what it does with its files (a run's own CSV file).
    private let note: @Sendable (String) -> Void

    // Used by one task at a time (the console's), apart from `stop` and `abortRun` (`control`).
    private var foundAtConnect: LeftoverScript?
    private var runs = 0
    private var table: PointCSVSink?
    private var jsonLines: SinkFile?
    private var opened: [SinkFile] = []
    private let memory = RunMemory()
    private let control = Mutex<(stop: StopReason?, run: RunControl?, recorded: Latch<Void>?)>((nil, nil, nil))

    /// The runs on `link`, taken over already (`version`, and the script it found running, if any).
    public init(
        link: OpenedPico,
        target: DeviceTarget,
        version: PicoVersion,
        serial: String?,
        foundAtConnect: LeftoverScript? = nil,
        limits: RunLimits = RunLimits(),
        files: Files = Files(),
        toolVersion: String,
        note: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.link = link
        self.target = target
        self.version = version
        self.serial = serial
        self.foundAtConnect = foundAtConnect
        self.limits = limits
        self.files = files
        self.toolVersion = toolVersion
        self.note = note
    }

    /// The stop, once one came.
    public var stopReason: StopReason? { control.withLock { $0.stop } }

    /// Runs `script` and records it to its end; `onEvent` sees every event first (a live display).
    /// Throws what kept the run from starting or its files from being written.
    public func run(_ script: PicoScript, onEvent: (PicoEvent) -> Void = { _ in }) async throws -> Result {
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
            toolVersion: toolVersion
        )
        foundAtConnect = nil
        memory.start(provenance: provenance)
        let sinks = try openedSinks(provenance: provenance)
        let runControl = RunControl(session: link.session, limits: limits)
        let recorded = Latch<Void>()
        control.withLock {
            $0.run = runControl; $0.recorded = recorded
        }
        defer {
            control.withLock {
                $0.run = nil; $0.recorded = nil
            }
            runControl.runEnded()
            recorded.settle(())
        }
        // The run's peaks or circuit fit, made as it ends: in its files' end, and returned.
        let recording = ControlledRecording(
            control: runControl,
            script: script,
            sinks: sinks + [memory],
            analysis: AnalysisSettings()
        )
        let run = try await link.session.run(script, title: "console-\(runs)")
        let end = try await recording.record(run, onEvent: onEvent)
        return Result(
            end: end,
            deviceError: !recording.recorder.deviceErrors.isEmpty,
            analysis: recording.analysis?.results
        )
    }

    /// Stops the run in progress with `reason` (`Z`); the session goes on.
    public func abortRun(_ reason: String) async {
        guard let run = control.withLock({ $0.run }) else { return }
        await run.stop(reason)
    }

    /// Records the stop; when a run is going, stops it and returns once it is recorded to its end.
    public func stop(_ reason: StopReason) async {
        let (run, recorded) = control.withLock { state in
            state.stop = state.stop ?? reason
            return (state.run, state.recorded)
        }
        guard let run, let recorded else { return }
        await run.stop(reason.description)
        await recorded.wait()
    }

    /// Why `save(to:)` wrote nothing.
    public struct SaveProblem: Error, CustomStringConvertible {
        /// What went wrong, naming the file.
        public let description: String
    }

    /// Writes the last run to `path` in the format its name says (`.jsonl`, `.pstrace.csv`, `.svg`, else
    /// the per-point CSV), never over a file that exists; returns the packages written.
    public func save(to path: String) throws(SaveProblem) -> Int {
        guard !path.isEmpty else { throw SaveProblem(description: ":save needs a file name") }
        guard memory.end != nil else { throw SaveProblem(description: ":save: no run yet") }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw SaveProblem(description: ":save \(path): exists; choose another name")
        }
        do throws(SinkError) {
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
        } catch {
            throw SaveProblem(description: ":save \(path): \(error)")
        }
        return memory.packages.count
    }

    /// Syncs every file the session wrote (as it ends).
    public func syncFiles() {
        for file in opened { try? file.sync() }
    }

    /// The run's sinks on the session's files, opened at the first run.
    private func openedSinks(provenance: RunProvenance) throws(SinkError) -> [any SampleSink] {
        var sinks: [any SampleSink] = []
        if let path = files.csv {
            let sink: PointCSVSink
            if let table {
                let number = runs
                sink = table.nextRun(provenance: provenance) { [self] () throws(SinkError) -> SinkFile in
                    let own = Self.runPath(path, number)
                    let file = try SinkFile(path: own, overwrite: files.overwrite)
                    opened.append(file)
                    note("run \(number) has other columns than \(path): its table goes to \(own)")
                    return file
                }
            } else {
                let file = try SinkFile(path: path, overwrite: files.overwrite)
                opened.append(file)
                sink = PointCSVSink(file: file, provenance: provenance)
            }
            table = sink
            sinks.append(sink)
        }
        if let path = files.jsonl {
            let file: SinkFile
            if let jsonLines {
                file = jsonLines
            } else {
                file = try SinkFile(path: path, overwrite: files.overwrite)
                opened.append(file)
                jsonLines = file
            }
            sinks.append(JSONLinesSink(file: file, provenance: provenance))
        }
        return sinks
    }

    /// `NAME-runN.csv`: the table of a run whose columns differ from the session's table.
    public static func runPath(_ path: String, _ run: Int) -> String {
        path.hasSuffix(".csv") ? "\(path.dropLast(4))-run\(run).csv" : "\(path)-run\(run)"
    }
}
