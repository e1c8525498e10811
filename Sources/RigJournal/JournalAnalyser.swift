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
        guard let job = try journal.analysisJobs(runs: [run]).first else { throw JournalError.unknownRun(String(run)) }
        let plan = RunAnalyser.plan(script: job.script)
        let points = try needsPoints(plan) ? journal.points(of: run) : PointTable(columns: [])
        return RunAnalyser.analyse(points, plan: plan, run: run, settings: settings, now: now, pruned: job.pruned)
    }

    /// A run's analysis: the one the journal holds (`stored`: what the rig made as the run ended, or a
    /// note that it has not yet), else made now from the run's points with `settings`.
    public static func analysis(
        of run: Int64,
        in journal: Journal,
        stored: Bool,
        settings: AnalysisSettings
    ) throws -> StoredAnalysis {
        guard stored else { return try analyse(run: run, in: journal, settings: settings) }
        return try journal.analysis(of: run)
            ?? StoredAnalysis(run: run, kind: .none, analysedAt: .nan, note: "not analysed yet")
    }

    /// Whether `plan` reads the run's points (a run with nothing to analyse is not read).
    public static func needsPoints(_ plan: RunAnalyser.Plan) -> Bool {
        if case .none = plan { false } else { true }
    }
}
