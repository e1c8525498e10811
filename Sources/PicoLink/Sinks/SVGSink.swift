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
    public let path: String
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

    public func begin(_ run: RunInfo) throws(SinkError) {
        builder = PlotBuilder(title: "\(run.device) run \(run.run) (\(run.title))")
        metadata = ProvenanceFields.fields(provenance, run: run)
        lastRender = run.startTime
    }

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
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SinkError(path: path, operation: "create a temporary file", errno: errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        func fail(_ operation: String, _ code: Int32) -> SinkError {
            _ = Glibc.close(fd)
            unlink(temporary)
            return SinkError(path: path, operation: operation, errno: code)
        }
        var text = document
        let written: Int32 = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += count
            }
            return 0
        }
        if written != 0 { throw fail("write", written) }
        guard fchmod(fd, 0o644) == 0, fsync(fd) == 0 else { throw fail("sync", errno) }
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
        _ = Glibc.close(fd)
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            _ = Glibc.close(directoryFD)
        }
    }

}
