import PicoLink

/// One run of the journal written as the four files of `hcipico export` (per-point CSV, JSON Lines,
/// PSTrace-style CSV, SVG plot), each with the run's provenance: used by `export` and by the status
/// page's downloads, so both give the same bytes.
public enum RunExport {
    /// The files of one run, after `DEVICE-runID`.
    public static let suffixes = [".csv", ".jsonl", ".pstrace.csv", ".svg"]

    /// Writes `base` + each suffix; returns the packages written. A sink's failure is thrown as the
    /// `SinkError` it is; the journal's as `JournalError`.
    @discardableResult
    public static func write(_ run: RunSummary, from journal: Journal, base: String, overwrite: Bool) throws -> Int {
        let provenance = try journal.provenance(of: run.id)
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
        let complete = run.state == "complete"
        let end = RunEnd(
            complete: complete,
            reason: complete ? nil : run.reason ?? run.state,
            packages: count,
            endTime: run.endedAt
        )
        for sink in sinks {
            try sink.finish(end)
            try sink.sync()
        }
        return count
    }
}
