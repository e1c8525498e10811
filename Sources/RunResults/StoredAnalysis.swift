import PicoAnalysis
import PicoLink

/// A run's analysis as the journal keeps it: peaks, a circuit fit, or nothing and why.
public struct StoredAnalysis: Sendable, Equatable {
    /// What was done.
    public enum Kind: String, Sendable, Equatable {
        /// Peaks of voltammograms.
        case peaks
        /// A circuit fitted to a spectrum (or not, with why).
        case fit
        /// Nothing to analyse: `note` says why.
        case none
    }

    /// The journal's row id of the run.
    public var run: Int64
    /// What was done.
    public var kind: Kind
    /// When, seconds since the Unix epoch.
    public var analysedAt: Double
    /// The results (nil for `none`).
    public var results: RunAnalysis?
    /// Why there are no results (`none`).
    public var note: String?

    /// An analysis of `run`.
    public init(run: Int64, kind: Kind, analysedAt: Double, results: RunAnalysis? = nil, note: String? = nil) {
        self.run = run
        self.kind = kind
        self.analysedAt = analysedAt
        self.results = results
        self.note = note
    }

    /// `{"device":…,"run":…,"kind":"peaks","note":null,"analysed_at":"…","results":{…}}`: what an
    /// export's `.results.json` and `hcipico analyze --json` on a journal give for a run.
    public func json(device: String, deviceRun: Int) -> String {
        let fields = [
            "\"device\":\(JSONText.quoted(device))", "\"run\":\(deviceRun)",
            "\"kind\":\(JSONText.quoted(kind.rawValue))", "\"note\":\(note.map(JSONText.quoted) ?? "null")",
            "\"analysed_at\":\(JSONText.quoted(UTCTime.iso8601(analysedAt)))", "\"results\":\(results?.json ?? "null")",
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }
}
