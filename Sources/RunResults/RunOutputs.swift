public import Foundation
public import PicoLink

/// The files one `connect` run writes, decided and checked before any socket opens (`--csv`, `--jsonl`,
/// `--svg`, `--pstrace`, and the four files `--out DIR` names), and opened only once the script runs,
/// with the run's provenance.
public struct RunOutputs: Sendable {
    public var csv: String?
    public var jsonl: String?
    public var svg: String?
    public var pstrace: String? = nil
    /// `--raw`: every byte the device sent, for `decode`.
    public var raw: String? = nil
    /// Where the run's analysis goes: this + `.results.json` and `.results.csv` (`--out DIR`).
    public var results: String? = nil
    /// `--csv` as one row per value (the layout before the per-point table) instead of one per point.
    public var longCSV = false
    public var overwrite: Bool
    public var sync: SyncPolicy

    public init(
        csv: String? = nil,
        jsonl: String? = nil,
        svg: String? = nil,
        pstrace: String? = nil,
        raw: String? = nil,
        results: String? = nil,
        longCSV: Bool = false,
        overwrite: Bool,
        sync: SyncPolicy = .default
    ) {
        self.csv = csv
        self.jsonl = jsonl
        self.svg = svg
        self.pstrace = pstrace
        self.raw = raw
        self.results = results
        self.longCSV = longCSV
        self.overwrite = overwrite
        self.sync = sync
    }

    /// Every output named, as the options name them.
    public var named: [OutputCheck.Named] {
        [
            ("--csv", csv), ("--jsonl", jsonl), ("--svg", svg), ("--pstrace", pstrace), ("--raw", raw),
            ("--out", results.map { $0 + ".results.json" }), ("--out", results.map { $0 + ".results.csv" }),
        ].compactMap { option, path in
            path.map { OutputCheck.Named(option, $0) }
        }
    }

    /// Whether a sink writes standard output (`-` or the same file as it): then the banner and the
    /// live table go to standard error.
    public var usesStandardOutput: Bool { named.contains { OutputCheck.isStandardOutput($0.path) } }

    /// Adds the six files of `--out DIR`:
    /// `DEVICE-TITLE-YYYYMMDDTHHMMSSZ.{csv,jsonl,svg,pstrace.csv,results.json,results.csv}`,
    /// with `-2`, `-3`… before the extension when a run of the same second is there already.
    public mutating func name(in directory: String, device: String, title: String, start: Date) {
        let stamp = Self.stamp(start)
        let safe = { (text: String) in
            String(text.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "-" })
        }
        let base = "\(directory)/\(safe(device))-\(safe(title))-\(stamp)"
        var suffix = ""
        var attempt = 1
        while ["csv", "jsonl", "svg", "pstrace.csv", "results.json", "results.csv"].contains(where: {
            FileManager.default.fileExists(atPath: "\(base)\(suffix).\($0)")
        }) {
            attempt += 1
            suffix = "-\(attempt)"
        }
        if csv == nil { csv = "\(base)\(suffix).csv" }
        if jsonl == nil { jsonl = "\(base)\(suffix).jsonl" }
        if svg == nil { svg = "\(base)\(suffix).svg" }
        if pstrace == nil { pstrace = "\(base)\(suffix).pstrace.csv" }
        if results == nil { results = "\(base)\(suffix)" }
    }

    /// Opens the sinks (new files, or replaced ones with `overwrite`); the CSV and JSON Lines files and
    /// the PSTrace notes start with `provenance`.
    public func open(provenance: RunProvenance) throws(SinkError) -> [any SampleSink] {
        var sinks: [any SampleSink] = []
        if let csv {
            sinks.append(
                longCSV
                    ? try CSVSink(path: csv, overwrite: overwrite, provenance: provenance)
                    : try PointCSVSink(path: csv, overwrite: overwrite, provenance: provenance)
            )
        }
        if let jsonl { sinks.append(try JSONLinesSink(path: jsonl, overwrite: overwrite, provenance: provenance)) }
        if let svg { sinks.append(SVGSink(path: svg, overwrite: overwrite, provenance: provenance)) }
        if let pstrace { sinks.append(try PSTraceSink(path: pstrace, overwrite: overwrite, provenance: provenance)) }
        return sinks
    }

    /// `20261125T093012Z`.
    public static func stamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02dZ",
            parts.tm_year + 1900,
            parts.tm_mon + 1,
            parts.tm_mday,
            parts.tm_hour,
            parts.tm_min,
            parts.tm_sec
        )
    }
}
