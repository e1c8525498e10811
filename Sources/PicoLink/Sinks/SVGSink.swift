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
/// A regular file (or a new one) is replaced whole (`ReplacedFile`) at most once per
/// `refreshInterval` while the run goes on and once at the end, so after a crash the plot is either
/// absent or a whole document. Anything else (a symlink, a FIFO, a character device, standard output)
/// gets the plot once, at the end of the run.
public final class SVGSink: SampleSink {
    /// Where the plot goes (`-` for standard output).
    public let path: String
    /// The least time between two redraws while the run goes on, in seconds of host time.
    public var refreshInterval: Double
    private let file: ReplacedFile
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
        file = ReplacedFile(path: path, overwrite: overwrite)
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
        if file.replaceable, package.hostTime - lastRender >= refreshInterval {
            lastRender = package.hostTime
            let document = renderer.render(
                builder.plots(),
                note: "running: \(builder.count) packages",
                metadata: metadata
            )
            try file.replace(with: document.utf8)
        }
    }

    /// Each replacement is synced as it is made.
    public func sync() throws(SinkError) {}

    /// Draws the final plot, with a note when the run is incomplete or sent no package and the end's
    /// overlays (a run's analysis) on the charts they are for, and writes it:
    /// replacing a replaceable target, else written into it once.
    public func finish(_ end: RunEnd) throws(SinkError) {
        var note: String? = nil
        if !end.complete {
            note = "incomplete: \(end.reason ?? "cut short")"
        } else if builder.count == 0 {
            note = "the run ended without sending a data package"
        }
        let ended = end.endUTC.map { [(key: "end_utc", value: $0)] } ?? []
        let state =
            [(key: "end", value: end.complete ? "complete" : "incomplete (\(end.reason ?? "cut short"))")]
            + (end.cell.map { [(key: "cell", value: $0.description)] } ?? [])
        var plots = builder.plots()
        for index in plots.indices { plots[index].overlays = end.overlays.filter { $0.fits(plots[index]) } }
        let document = renderer.render(plots, note: note, metadata: metadata + ended + state)
        try file.write(Array(document.utf8))
    }
}
