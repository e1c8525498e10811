import Foundation
import PicoAnalysis
import PicoLink
import RunResults

/// One run of the journal written as the six files of `hcipico export` (per-point CSV, JSON Lines,
/// PSTrace-style CSV, SVG plot, and the run's analysis as JSON and CSV), each with the run's provenance:
/// used by `export` and by the status page's downloads, so both give the same bytes.
///
/// The analysis is the one the rig stored as the run ended; a run without one (still running, or from a
/// journal written before the rig analysed its runs) is analysed now with the default settings. It is
/// also in the JSON Lines end line and drawn on the plot.
public enum RunExport {
    /// The files of one run, after `DEVICE-runID`.
    public static let suffixes = [".csv", ".jsonl", ".pstrace.csv", ".svg", ".results.json", ".results.csv"]

    /// One run's files' name before their suffixes, in a folder or as a download: `DEVICE-runID`.
    public static func name(of run: RunSummary) -> String { "\(run.device)-run\(run.id)" }

    /// Where one run's files go before their suffixes: `FOLDER/DEVICE-runID`.
    public static func base(of run: RunSummary, in folder: String) -> String { "\(folder)/\(name(of: run))" }

    /// The files exporting `runs` into `folder` would replace: an export that would replace one
    /// writes nothing unless told to overwrite.
    public static func existingFiles(of runs: [RunSummary], in folder: String) -> [String] {
        runs.flatMap { run in suffixes.map { base(of: run, in: folder) + $0 } }
            .filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Writes `base` + each suffix; returns the packages written. A sink's failure is thrown as the
    /// `SinkError` it is; the journal's as `JournalError`.
    @discardableResult
    public static func write(_ run: RunSummary, from journal: Journal, base: String, overwrite: Bool) throws -> Int {
        let provenance = try journal.provenance(of: run.id)
        let results = try AnalysisFiles(
            json: SinkFile(path: base + ".results.json", overwrite: overwrite),
            csv: SinkFile(path: base + ".results.csv", overwrite: overwrite)
        )
        let sinks: [any SampleSink] = [
            try PointCSVSink(path: base + ".csv", overwrite: overwrite, provenance: provenance),
            try JSONLinesSink(path: base + ".jsonl", overwrite: overwrite, provenance: provenance),
            try PSTraceSink(path: base + ".pstrace.csv", overwrite: overwrite, provenance: provenance),
            SVGSink(path: base + ".svg", refreshInterval: .infinity, overwrite: overwrite, provenance: provenance),
        ]
        let info = RunInfo(device: run.device, run: provenance.deviceRun, title: run.title, startTime: run.startedAt)
        for sink in sinks { try sink.begin(info) }
        var count = 0
        try journal.forEachPackage(of: run.id) { package in
            for sink in sinks { try sink.write(package) }
            count += 1
        }
        // A stored analysis this build cannot read (nil results for a kind that has them) is made again.
        let stored = try journal.analysis(of: run.id).flatMap { $0.kind != .none && $0.results == nil ? nil : $0 }
        let analysis = try stored ?? JournalAnalyser.analyse(run: run.id, in: journal, settings: AnalysisSettings())
        let complete = run.state == "complete"
        var end = RunEnd(
            complete: complete,
            reason: complete ? nil : run.reason ?? run.state,
            packages: count,
            endTime: run.endedAt,
            analysis: analysis.results?.json
        )
        end.overlays = try AnalysisOverlays.of(analysis.results, points: try journal.points(of: run.id))
        for sink in sinks {
            try sink.finish(end)
            try sink.sync()
        }
        try results.write(analysis, deviceRun: provenance.deviceRun, device: run.device)
        return count
    }
}
