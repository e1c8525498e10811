#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes the run as PalmSens PSTrace exports its CSV files, for the readers and scripts made for
/// those: UTF-16 little-endian with a byte order mark, CRLF line ends, six header lines, then the
/// data — (E, I) column pairs per scan for voltammetry, the impedance block for EIS, a column per
/// value otherwise (`PSTraceTable` has the layout). Loads with
/// `numpy.genfromtxt(path, delimiter=',', skip_header=6, encoding='utf-16')`.
///
/// Curves stand side by side, so the file cannot grow by appending: the packages are kept, and a
/// regular file is written whole (`ReplacedFile`) at most once per `refreshInterval` while the run goes
/// on — its notes line (line 2) then says `end: running, N packages so far` — and once at the end,
/// when the notes line holds the provenance (`RunProvenance` when the caller passes one) and how the
/// run ended. After a crash the file is absent or a whole table of the run up to its last rewrite.
/// Anything else (a FIFO, a character device) gets the table once, at the end.
public final class PSTraceSink: SampleSink {
    private let file: ReplacedFile
    private let provenance: RunProvenance?
    /// The least time between two rewrites while the run goes on, in seconds of host time.
    public var refreshInterval: Double
    private var run = RunInfo(device: "", run: 0, title: "", startTime: 0)
    private var packages: [PicoPackage] = []
    private var lastWrite = 0.0

    /// A sink that writes `path` (see above): a new file unless `overwrite`, refused at once when the
    /// file exists and `overwrite` is not given. `provenance`, when given, fills the notes line and
    /// gives the title and start time.
    public init(
        path: String,
        overwrite: Bool = false,
        refreshInterval: Double = 2,
        provenance: RunProvenance? = nil
    ) throws(SinkError) {
        file = ReplacedFile(path: path, overwrite: overwrite)
        if file.refusesExisting { throw SinkError(path: path, operation: "create", errno: EEXIST) }
        self.provenance = provenance
        self.refreshInterval = refreshInterval
    }

    /// Each rewrite is synced as it is made.
    public func sync() throws(SinkError) {}

    /// Keeps the run's facts for the header; writes nothing.
    public func begin(_ run: RunInfo) throws(SinkError) {
        self.run = run
        lastWrite = run.startTime
    }

    /// Keeps the package; rewrites a regular file once `refreshInterval` has passed since the last
    /// rewrite (or the run's start).
    public func write(_ package: PicoPackage) throws(SinkError) {
        packages.append(package)
        if file.replaceable, package.hostTime - lastWrite >= refreshInterval {
            lastWrite = package.hostTime
            try file.replace(with: document(end: "running, \(packages.count) packages so far", endUTC: nil))
        }
    }

    /// Writes the whole table with how the run ended, then forgets the packages.
    public func finish(_ end: RunEnd) throws(SinkError) {
        let how = end.complete ? "complete" : "incomplete (\(end.reason ?? "cut short"))"
        let cell = end.cell.map { "; \($0)" } ?? ""
        try file.write(document(end: "\(how), \(end.packages) packages\(cell)", endUTC: end.endUTC))
        packages = []
    }

    /// The file's bytes: the table of the packages so far, its notes ending with `end: END`.
    private func document(end: String, endUTC: String?) -> [UInt8] {
        var notes = ProvenanceFields.fields(provenance, run: run).map { "\($0.key): \($0.value)" }
        if let endUTC { notes.append("end_utc: \(endUTC)") }
        notes.append(ProvenanceFields.oneLine("end: \(end)"))
        notes.append("times UTC")
        let table = PSTraceTable(
            packages: packages,
            title: provenance?.title ?? run.title,
            startTime: provenance?.startTime ?? run.startTime,
            notes: notes.joined(separator: "; ")
        )
        return Self.utf16(table.lines.map { $0 + "\r\n" }.joined())
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
