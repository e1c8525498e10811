public import PicoAnalysis
public import PicoLink

/// A sink that keeps a run's points as a table, so that the run can be analysed as it ends (`connect`,
/// the console): `RunRecorder`'s `annotate` calls `annotate(_:)`, which analyses them and puts the
/// results into the end every other sink is finished with (the JSON Lines end line, the plot's overlays).
/// `RunRecorder` makes every call into it under its lock, one at a time (what makes it `Sendable`).
public final class AnalysingSink: SampleSink, @unchecked Sendable {
    private var points = PointColumns(deviceRun: 0)
    private let script: String
    private let settings: AnalysisSettings?
    /// The analysis, once the run has ended (nil before, or when the analysis is off).
    public private(set) var analysis: StoredAnalysis?

    /// A sink for a run of `script`, analysed with `settings` (nil: not analysed).
    public init(script: String, settings: AnalysisSettings?) {
        self.script = script
        self.settings = settings
    }

    public func begin(_ run: RunInfo) throws(SinkError) { points = PointColumns(deviceRun: run.run) }

    public func write(_ package: PicoPackage) throws(SinkError) { points.add(package) }

    public func finish(_ end: RunEnd) throws(SinkError) {}

    /// `end` with the run's analysis: made once, from the points received.
    public func annotate(_ end: RunEnd) -> RunEnd {
        guard let settings else { return end }
        let table = points.table
        let made = analysis ?? RunAnalyser.analyse(table, script: script, run: 0, settings: settings)
        analysis = made
        var annotated = end
        annotated.analysis = made.results?.json
        annotated.overlays = AnalysisOverlays.of(made.results, points: table)
        return annotated
    }
}
