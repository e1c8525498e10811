/// Writes the run as PalmSens PSTrace exports its CSV files, for the readers and scripts made for
/// those: UTF-16 little-endian with a byte order mark, CRLF line ends, six header lines, then the
/// data — (E, I) column pairs per scan for voltammetry, the impedance block for EIS, a column per
/// value otherwise (`PSTraceTable` has the layout). Loads with
/// `numpy.genfromtxt(path, delimiter=',', skip_header=6, encoding='utf-16')`.
///
/// Curves stand side by side, so nothing can be written before the run ends: the packages are kept
/// and the file is written in one write by `finish`, whose notes line (line 2) holds the provenance
/// (`RunProvenance` when the caller passes one) and how the run ended. The file is opened (created,
/// or refused when it exists and `overwrite` is not given) when the sink is made, so after a crash it
/// is empty; a failed write throws and leaves it empty.
public final class PSTraceSink: SampleSink {
    private let file: SinkFile
    private let provenance: RunProvenance?
    private var run = RunInfo(device: "", run: 0, title: "", startTime: 0)
    private var packages: [PicoPackage] = []

    /// A sink that writes `file` whole at `finish`; `provenance`, when given, fills the notes line and gives
    /// the title and start time.
    public init(file: SinkFile, provenance: RunProvenance? = nil) {
        self.file = file
        self.provenance = provenance
    }

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

    /// Keeps the run's facts for the header; writes nothing.
    public func begin(_ run: RunInfo) throws(SinkError) { self.run = run }

    /// Keeps the package; nothing is written before `finish`.
    public func write(_ package: PicoPackage) throws(SinkError) { packages.append(package) }

    /// Writes the whole file in one write (header, notes with how the run ended, data), then forgets the
    /// packages.
    public func finish(_ end: RunEnd) throws(SinkError) {
        let how = end.complete ? "complete" : "incomplete (\(end.reason ?? "cut short"))"
        var notes = ProvenanceFields.fields(provenance, run: run).map { "\($0.key): \($0.value)" }
        if let endUTC = end.endUTC { notes.append("end_utc: \(endUTC)") }
        notes.append(ProvenanceFields.oneLine("end: \(how), \(end.packages) packages"))
        notes.append("times UTC")
        let table = PSTraceTable(
            packages: packages,
            title: provenance?.title ?? run.title,
            startTime: provenance?.startTime ?? run.startTime,
            notes: notes.joined(separator: "; ")
        )
        try file.write(bytes: Self.utf16(table.lines.map { $0 + "\r\n" }.joined()))
        packages = []
    }

    /// `text` as UTF-16 little-endian after the byte order mark `FF FE`.
    static func utf16(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xFE]
        bytes.reserveCapacity(2 + 2 * text.utf16.count)
        for unit in text.utf16 {
            bytes.append(UInt8(truncatingIfNeeded: unit))
            bytes.append(UInt8(truncatingIfNeeded: unit >> 8))
        }
        return bytes
    }
}
