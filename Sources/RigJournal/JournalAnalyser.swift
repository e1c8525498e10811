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
        now: Double = Date().timeIntervalSince1970,
        plan: (String) -> RunAnalyser.Plan = RunAnalyser.plan(script:)
    ) throws -> StoredAnalysis {
        let (script, pruned) = try journal.scriptAndPruning(of: run)
        let plan = plan(script)
        // A run with nothing to analyse is not read.
        let points = if case .none = plan { PointTable(columns: []) } else { try journal.points(of: run) }
        return RunAnalyser.analyse(points, plan: plan, run: run, settings: settings, now: now, pruned: pruned)
    }
}
