/// Writes one CSV row per data package — the table pandas, numpy, MATLAB or a spreadsheet reads:
///
/// ```
/// # tool: hcipico 0.1.0
/// # device: pico-cv
/// …
/// run,scan,loop,package,host_time,p [V],c [A],c status,c range [A]
/// 1,1,1,0,1763787000.512345,-0.5,-5.7847747e-05,0,0.0001
/// # end: complete, 201 packages
/// ```
///
/// The leading `#` lines say where the run came from (`RunProvenance` when the caller passes one:
/// tool version, device, address, transport, firmware, serial number, script file and its SHA-256,
/// run, start in UTC, link). The columns are `PointLayout`'s: run; scan and loop counted from 1;
/// package index from 0; host time in seconds since the Unix epoch; the device's time where the
/// script sends one; then per value its SI value, shortest round-trip decimal (`NaN` when the device
/// sent `nan`), named with the script's variable name and unit, and for currents the status bits
/// (0 is OK) and the range's full scale. Every field is a number or empty, so
/// `pandas.read_csv(path, comment="#")` gives numeric columns; `numpy.genfromtxt` with `names=True`
/// takes its names from the first line even when it is a comment, so it wants `skip_header` set to
/// the number of leading `#` lines (and `comments="#"` for the end line).
///
/// The first package sets the columns. A later package is written under them when each of its values
/// has a column there (matched by name, type and order; columns it lacks stay empty). A package with
/// a value they lack — another `pck_start … pck_end` block of the script — starts a new block: a
/// `# columns change at package N` line and a new header line, never a row under the wrong names.
/// A script with one package block gives one header.
///
/// The file ends with `# end: complete, N packages` or `# end: incomplete (REASON), N packages`; a
/// file without it was cut off by a crash. Each row goes to the file in one write.
///
/// Several runs can share one table (`nextRun`, the console's `--csv`): each adds its own `#` lines
/// and its end line, and its rows go under the header already there when they fit it; a run whose
/// columns differ goes to a file of its own instead, so no header ever stands in the middle of the
/// rows of another.
public final class PointCSVSink: SampleSink {
    private(set) var file: SinkFile
    private let provenance: RunProvenance?
    private var layout: PointLayout?
    private var wroteProvenance = false
    /// The run info `begin` was given, kept while the provenance waits for the first package.
    private var pendingRun: RunInfo?
    /// Where a continuing run goes when its columns differ from the table's (nil: a first run).
    private let newFile: (() throws(SinkError) -> SinkFile)?

    /// A sink that appends to `file`; the leading `#` lines hold `provenance` when given, else what `RunInfo`
    /// tells.
    public init(file: SinkFile, provenance: RunProvenance? = nil) {
        self.file = file
        self.provenance = provenance
        newFile = nil
    }

    private init(
        continuing file: SinkFile,
        layout: PointLayout?,
        provenance: RunProvenance,
        newFile: @escaping () throws(SinkError) -> SinkFile
    ) {
        self.file = file
        self.layout = layout
        self.provenance = provenance
        self.newFile = newFile
    }

    /// The sink for the next run into this table, with its own `provenance`: its `#` lines and rows
    /// follow this run's in the same file when its packages fit the columns there; otherwise they go
    /// to the file `newFile` opens, under a header of their own. Call it once this run has finished.
    public func nextRun(
        provenance: RunProvenance,
        newFile: @escaping () throws(SinkError) -> SinkFile
    ) -> PointCSVSink {
        PointCSVSink(continuing: file, layout: layout, provenance: provenance, newFile: newFile)
    }

    /// The path of the file this run's rows went to (a continuing run may have moved to a new one).
    public var path: String { file.path }

    /// Opens `path` (see `SinkFile`: a new file unless `overwrite`).
    public convenience init(
        path: String,
        overwrite: Bool = false,
        provenance: RunProvenance? = nil
    )
        throws(SinkError)
    {
        self.init(file: try SinkFile(path: path, overwrite: overwrite), provenance: provenance)
    }

    /// Flushes the file to the device (`SinkFile.sync`).
    public func sync() throws(SinkError) { try file.sync() }

    /// Writes the leading `#` lines; only for the first run. A continuing run writes them with its
    /// first package (or its end), once it knows which file its rows go to.
    public func begin(_ run: RunInfo) throws(SinkError) {
        guard !wroteProvenance else { return }
        guard newFile == nil else {
            pendingRun = run
            return
        }
        wroteProvenance = true
        try file.write(ProvenanceFields.commentLines(provenance, run: run))
    }

    /// A continuing run's `#` lines, in its own file when `package` does not fit the table's columns.
    private func placeContinuingRun(first package: PicoPackage?) throws(SinkError) {
        guard let run = pendingRun else { return }
        pendingRun = nil
        wroteProvenance = true
        if let package, let newFile, layout?.placement(of: package) == nil {
            file = try newFile()
            layout = nil
        }
        try file.write(ProvenanceFields.commentLines(provenance, run: run))
    }

    /// Writes the package's row, after a new header when its values do not fit the current columns.
    public func write(_ package: PicoPackage) throws(SinkError) {
        try placeContinuingRun(first: package)
        if let layout, let placement = layout.placement(of: package) {
            try file.write(layout.row(package, placement: placement))
            return
        }
        let next = PointLayout(package)
        var text = layout == nil ? "" : "# columns change at package \(package.index)\n"
        text += next.header
        text += next.row(package, placement: next.placement(of: package) ?? [])
        layout = next
        try file.write(text)
    }

    /// Writes the `# end_utc:` line (when the end time is known) and the `# end:` line.
    public func finish(_ end: RunEnd) throws(SinkError) {
        try placeContinuingRun(first: nil)
        let reason = ProvenanceFields.oneLine(end.reason ?? "cut short")
        let how = end.complete ? "complete" : "incomplete (\(reason))"
        try file.write(
            (end.endUTC.map { "# end_utc: \($0)\n" } ?? "") + "# end: \(how), \(end.packages) packages\n"
                + end.cellCommentLine
        )
    }
}
