import Foundation
import PicoAnalysis
public import RunResults

/// Analyses a journal's ended runs (`RunAnalyser` on the run's committed points and script). Used by the
/// rig as each run ends, by exports and by `hcipico analyze` on a journal; nothing is stored here.
public enum JournalAnalyser {
    /// Analyses `run` of `journal` with `settings`.
    public static func analyse(
        run: Int64,
        in journal: Journal,
        settings: AnalysisSettings,
        now: Double = Date().timeIntervalSince1970
    ) throws -> StoredAnalysis {
        let provenance = try journal.provenance(of: run)
        let pruned = try journal.runs(RunFilter(ids: [run])).first?.prunedAt != nil
        return RunAnalyser.analyse(
            try journal.points(of: run),
            script: provenance.script,
            run: run,
            settings: settings,
            now: now,
            pruned: pruned
        )
    }
}
