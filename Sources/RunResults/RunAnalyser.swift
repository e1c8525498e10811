import Foundation
import MethodSCRIPT
import PicoAnalysis

/// What is done with a run's points, as its script decides: peaks for a voltammetry (LSV, CV, DPV, SWV,
/// NPV), a circuit fit for an EIS, nothing for the other techniques. Used by the rig as each run ends
/// (on its journal), by exports, and by `connect` and `analyze`.
public enum RunAnalyser {
    /// What a script's points are good for.
    public enum Plan: Sendable, Equatable {
        /// Voltammograms: peaks, with the sweeps' scan rate when the script gives it as a number (LSV, CV).
        case peaks(scanRate: Double?)
        /// An impedance spectrum: a circuit fit.
        case fit
        /// Nothing to analyse, and why.
        case none(String)
    }

    /// The plan for `script` (the run's script as the journal keeps it).
    public static func plan(script: String) -> Plan {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false).map { ArraySlice(Array($0.utf8)) }
        // The journal keeps what follows the `e` that starts a script; a script written whole has it.
        if let first = lines.firstIndex(where: { !$0.isEmpty }), lines[first] == ArraySlice("e".utf8) {
            lines.removeSubrange(...first)
        }
        let program: ScriptProgram
        do {
            program = try ScriptParser.parse(lines: lines)
        } catch {
            return .none("its script could not be read: \(error)")
        }
        if program.techniques.contains(.eis) { return .fit }
        let sweeps: Set<MeasurementLoopKind> = [.lsv, .cv, .dpv, .swv, .npv]
        guard program.techniques.contains(where: sweeps.contains) else {
            let names = program.techniques.map { $0.rawValue.uppercased() }
            return .none(
                names.isEmpty ? "its script measures nothing" : "nothing to analyse in \(names.joined(separator: ", "))"
            )
        }
        var rates: [Double] = []
        for statement in program.statements {
            guard case .measure(let loop) = statement.instruction else { continue }
            let position: Int? =
                switch loop.kind {
                case .lsv: 3
                case .cv: 4
                default: nil
                }
            if let position, position < loop.parameters.count, case .literal(let rate, _) = loop.parameters[position] {
                rates.append(rate)
            }
        }
        let rate = rates.first.flatMap { first in rates.allSatisfy { $0 == first } && first > 0 ? first : nil }
        return .peaks(scanRate: rate)
    }

    /// Analyses the points of `run` (its table; the journal's row id, or 0 for a run without one) with
    /// `settings` (the scan rate the script gives when the settings give none).
    public static func analyse(
        _ points: PointTable,
        script: String,
        run: Int64,
        settings: AnalysisSettings,
        now: Double = Date().timeIntervalSince1970,
        pruned: Bool = false
    ) -> StoredAnalysis {
        analyse(points, plan: plan(script: script), run: run, settings: settings, now: now, pruned: pruned)
    }

    /// Analyses `points` as `plan` says (the plan of the run's script, made once for many runs).
    public static func analyse(
        _ points: PointTable,
        plan: Plan,
        run: Int64,
        settings: AnalysisSettings,
        now: Double = Date().timeIntervalSince1970,
        pruned: Bool = false
    ) -> StoredAnalysis {
        if case .none(let why) = plan { return StoredAnalysis(run: run, kind: .none, analysedAt: now, note: why) }
        guard let first = RunData.runs(of: points).first else {
            let why = pruned ? "its points were pruned" : "no points to analyse"
            return StoredAnalysis(run: run, kind: .none, analysedAt: now, note: why)
        }
        var settings = settings
        switch (plan, first) {
        case (.peaks(let rate), .voltammetry):
            settings.scanRate = settings.scanRate ?? rate
            return StoredAnalysis(
                run: run,
                kind: .peaks,
                analysedAt: now,
                results: RunAnalysis(first, settings: settings)
            )
        case (.fit, .impedance):
            return StoredAnalysis(
                run: run,
                kind: .fit,
                analysedAt: now,
                results: RunAnalysis(first, settings: settings)
            )
        default:
            return StoredAnalysis(
                run: run,
                kind: .none,
                analysedAt: now,
                note: "its points are not what its script measures (no potential and current, or no spectrum)"
            )
        }
    }
}
