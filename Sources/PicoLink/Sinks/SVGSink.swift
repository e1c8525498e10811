#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Draws the run as an SVG plot (`PlotBuilder` picks the kind). The file is rewritten — to a temporary
/// name, then renamed over the old one — at most once per `refreshInterval` while the run goes on and
/// once at the end, so a plot is there even if the process dies mid-run. An incomplete run says so in
/// the plot's title line.
public final class SVGSink: SampleSink {
    public let path: String
    public var refreshInterval: Double
    private var builder = PlotBuilder(title: "")
    private var lastRender = 0.0
    private let renderer = SVGPlotRenderer()

    public init(path: String, refreshInterval: Double = 2) {
        self.path = path
        self.refreshInterval = refreshInterval
    }

    public func begin(_ run: RunInfo) throws(SinkError) {
        builder = PlotBuilder(title: "\(run.device) run \(run.run) (\(run.title))")
        lastRender = run.startTime
    }

    public func write(_ package: PicoPackage) throws(SinkError) {
        builder.add(package)
        if package.hostTime - lastRender >= refreshInterval {
            lastRender = package.hostTime
            try render(note: "running: \(builder.count) packages")
        }
    }

    public func finish(_ end: RunEnd) throws(SinkError) {
        try render(note: end.complete ? nil : "incomplete: \(end.reason ?? "cut short")")
    }

    private func render(note: String?) throws(SinkError) {
        let temporary = path + ".partial"
        let file = try SinkFile(path: temporary)
        try file.write(renderer.render(builder.plots(), note: note))
        file.close()
        guard rename(temporary, path) == 0 else { throw SinkError(path: path, operation: "rename", errno: errno) }
    }
}
