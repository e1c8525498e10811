public import PicoAnalysis
public import RunResults

/// The analyses of a journal's runs as `hcipico analyze` gives them: made again with settings, or as the
/// rig stored them when each run ended; as tables for people or JSON for programs.
public struct JournalAnalyses: Sendable {
    /// One run and its analysis.
    public struct Entry: Sendable {
        /// The run.
        public let run: RunSummary
        /// Its analysis, or a note saying why there is none.
        public let analysis: StoredAnalysis

        /// How the run is named: `cv run 3 (id 12)`.
        public var name: String { "\(run.device) run \(run.deviceRun) (id \(run.id))" }
    }

    /// The runs, in the order given.
    public let entries: [Entry]

    /// Analyses `runs` of `journal` (`JournalAnalyser.analysis(of:in:stored:settings:)`).
    public init(runs: [RunSummary], in journal: Journal, stored: Bool, settings: AnalysisSettings) throws {
        entries = try runs.map { run in
            Entry(
                run: run,
                analysis: try JournalAnalyser.analysis(of: run.id, in: journal, stored: stored, settings: settings)
            )
        }
    }

    /// A block per run: its tables, or why it has none.
    public var text: String {
        entries.map { entry in
            guard let results = entry.analysis.results else {
                return "\(entry.name): \(entry.analysis.note ?? "nothing to analyse")"
            }
            return AnalysisReport(analyses: [results], names: [entry.name]).text
        }.joined(separator: "\n\n")
    }

    /// `{"runs":[…]}`, each run as `StoredAnalysis.json(device:deviceRun:)` writes it.
    public var json: String {
        let objects = entries.map { $0.analysis.json(device: $0.run.device, deviceRun: $0.run.deviceRun) }
        return "{\"runs\":[" + objects.joined(separator: ",") + "]}"
    }

    /// The fits that did not converge, by run name.
    public var failures: [(run: String, error: CircuitFitError)] {
        entries.compactMap { entry in entry.analysis.results?.fitFailure.map { (entry.name, $0.error) } }
    }
}
