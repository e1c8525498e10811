import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Draws the run as an SVG plot (`PlotBuilder` picks the kind). An incomplete run says so under the
/// plot's title, or in its plot area when there is nothing to draw (a run that failed before its first
/// package).
///
/// A regular file (or a new one) is replaced whole — written to a temporary file beside it, synced,
/// then renamed over it — at most once per `refreshInterval` while the run goes on and once at the
/// end, so after a crash the plot is either absent or a whole document. Anything else (a symlink, a
/// FIFO, a character device, standard output) is never replaced: the plot is written into it once, at
/// the end of the run.
public final class SVGSink: SampleSink {
    /// Where the plot goes (`-` for standard output).
    public let path: String
    /// The least time between two redraws while the run goes on, in seconds of host time.
    public var refreshInterval: Double
    private let replaceable: Bool
    private let overwrite: Bool
    private var created = false
    private var builder = PlotBuilder(title: "")
    private var lastRender = 0.0
    private let renderer = SVGPlotRenderer()
    /// The run's provenance, written into the document's `<metadata>`.
    private let provenance: RunProvenance?
    private var metadata: [(key: String, value: String)] = []

    /// `overwrite` allows replacing an existing regular file (checked again when it is first written).
    public init(path: String, refreshInterval: Double = 2, overwrite: Bool = false, provenance: RunProvenance? = nil) {
        self.path = path
        self.provenance = provenance
        self.refreshInterval = refreshInterval
        self.overwrite = overwrite
        var info = stat()
        if path == "-" {
            replaceable = false
        } else if lstat(path, &info) == 0 {
            replaceable = info.st_mode & S_IFMT == S_IFREG
        } else {
            replaceable = true
        }
    }

    /// Starts an empty plot for the run, titled `<device> run <n> (<title>)`.
    public func begin(_ run: RunInfo) throws(SinkError) {
        builder = PlotBuilder(title: "\(run.device) run \(run.run) (\(run.title))")
        metadata = ProvenanceFields.fields(provenance, run: run)
        lastRender = run.startTime
    }

    /// Adds the package; redraws a replaceable target once `refreshInterval` has passed since the last
    /// redraw (or since the run's start).
    public func write(_ package: PicoPackage) throws(SinkError) {
        builder.add(package)
        if replaceable, package.hostTime - lastRender >= refreshInterval {
            lastRender = package.hostTime
            try replace(
                with: renderer.render(builder.plots(), note: "running: \(builder.count) packages", metadata: metadata)
            )
        }
    }

    /// Each replacement is synced as it is made.
    public func sync() throws(SinkError) {}

    /// Draws the final plot, with a note when the run is incomplete or sent no package, and writes it:
    /// replacing a replaceable target, else written into it once.
    public func finish(_ end: RunEnd) throws(SinkError) {
        var note: String? = nil
        if !end.complete {
            note = "incomplete: \(end.reason ?? "cut short")"
        } else if builder.count == 0 {
            note = "the run ended without sending a data package"
        }
        let ended = end.endUTC.map { [(key: "end_utc", value: $0)] } ?? []
        let state = [(key: "end", value: end.complete ? "complete" : "incomplete (\(end.reason ?? "cut short"))")]
        let document = renderer.render(builder.plots(), note: note, metadata: metadata + ended + state)
        if replaceable {
            try replace(with: document)
        } else {
            let file = try SinkFile(path: path, overwrite: true)
            try file.write(document)
            try file.sync()
            file.close()
        }
    }

    /// Writes `document` to a new temporary file in the target's directory, syncs it, renames it over
    /// the target and syncs the directory. The first replacement refuses an existing file unless
    /// `overwrite` (another program may have made it since the run was checked).
    private func replace(with document: String) throws(SinkError) {
        let directory = OutputCheck.parent(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(directory)/.\(name).XXXXXX".utf8CString)
        // mkstemp (which swift-system does not offer) makes the name; the rest goes through
        // `FileDescriptor` but for fchmod and fsync, which it does not offer either.
        let raw = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard raw >= 0 else { throw SinkError(path: path, operation: "create a temporary file", errno: errno) }
        let fd = FileDescriptor(rawValue: raw)
        _ = fcntl(raw, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func fail(_ operation: String, _ code: Int32) -> SinkError {
            try? fd.close()
            unlink(temporary)
            return SinkError(path: path, operation: operation, errno: code)
        }
        do {
            _ = try fd.writeAll(document.utf8)
        } catch {
            throw fail("write", (error as? Errno)?.rawValue ?? EIO)
        }
        guard fchmod(raw, 0o644) == 0, fsync(raw) == 0 else { throw fail("sync", errno) }
        // The first replacement must not replace a file that appeared after the check: a hard link
        // fails if the name exists (file systems without hard links fall back to rename).
        if !overwrite && !created && link(temporary, path) == 0 {
            unlink(temporary)
        } else if !overwrite && !created && errno == EEXIST {
            throw fail("create", EEXIST)
        } else {
            guard rename(temporary, path) == 0 else { throw fail("rename", errno) }
        }
        created = true
        try? fd.close()
        let directoryOptions: FileDescriptor.OpenOptions = [.directory, .closeOnExec]
        if let directoryFD = try? FileDescriptor.open(FilePath(directory), .readOnly, options: directoryOptions) {
            _ = fsync(directoryFD.rawValue)
            try? directoryFD.close()
        }
    }

}
