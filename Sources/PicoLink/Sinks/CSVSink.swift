/// Writes one CSV row per value: device, run, package, loop, scan, host time, device time, the
/// script's name for the value, variable, quantity, value, unit, status, range. Loops and scans are
/// numbered from 1 as in every other output (`PicoPackage.scanNumber`). Each package's rows go to the file in one write.
///
/// The file ends with a comment line that says how the run ended — `# end: complete, 101 packages` or
/// `# end: incomplete (connection lost), 57 packages`. A file without it was cut off by a crash.
/// Hand-written (no CSV package is available to the project, and none is needed): a package's rows are
/// built as one string and written in one write, so a crash cuts the file only between packages.
public final class CSVSink: SampleSink {
    /// The column header line, newline included.
    public static let header =
        "device,run,package,loop,scan,host_time,device_time,name,variable,quantity,value,unit,status,range\n"

    private let file: SinkFile
    private var wroteHeader = false
    /// Written as `# key: value` lines before the header when given.
    private let provenance: RunProvenance?

    /// A sink that appends to `file`; `provenance`, when given, is written as `# key: value` lines before the
    /// header.
    public init(file: SinkFile, provenance: RunProvenance? = nil) {
        self.file = file
        self.provenance = provenance
    }

    /// Opens `path` (see `SinkFile`: a new file unless `overwrite`).
    public convenience init(path: String, overwrite: Bool = false, provenance: RunProvenance? = nil) throws(SinkError) {
        self.init(file: try SinkFile(path: path, overwrite: overwrite), provenance: provenance)
    }

    /// Flushes the file to the device (`SinkFile.sync`).
    public func sync() throws(SinkError) { try file.sync() }

    /// Writes the provenance lines (when given) and the header; only for the first run.
    public func begin(_ run: RunInfo) throws(SinkError) {
        guard !wroteHeader else { return }
        wroteHeader = true
        try file.write((provenance == nil ? "" : ProvenanceFields.commentLines(provenance, run: run)) + CSVSink.header)
    }

    /// Writes the package's rows, one per value, in one write.
    public func write(_ package: PicoPackage) throws(SinkError) {
        var rows = ""
        let prefix = [
            SinkText.csv(package.device), String(package.run), String(package.index), String(package.loop),
            String(package.scanNumber), SinkText.seconds(package.hostTime),
            package.deviceTime.map { SinkText.number($0, nan: "NaN") } ?? "",
        ].joined(separator: ",")
        for value in package.values {
            rows += prefix + ","
            rows += [
                SinkText.csv(value.name ?? ""), value.code, SinkText.csv(value.quantity),
                SinkText.number(value.value, nan: "NaN"), value.unit, value.statusText ?? "",
                SinkText.csv(value.rangeLabel ?? ""),
            ].joined(separator: ",")
            rows += "\n"
        }
        try file.write(rows)
    }

    /// Writes the `# end_utc:` line (when the end time is known) and the `# end:` line.
    public func finish(_ end: RunEnd) throws(SinkError) {
        let how = end.complete ? "complete" : "incomplete (\(ProvenanceFields.oneLine(end.reason ?? "cut short")))"
        try file.write(
            (end.endUTC.map { "# end_utc: \($0)\n" } ?? "") + "# end: \(how), \(end.packages) packages\n"
                + end.cellCommentLine
        )
    }
}
