/// Analysis results as CSV: one row per peak, or one row per fitted parameter; a header of names with
/// units in brackets, as the per-point files have.
public enum AnalysisCSV {
    /// The peaks' header.
    public static let peakHeader = [
        "run", "current", "scan", "sweep", "direction", "potential [V]", "current [A]", "baseline [A]",
        "height [A]", "prominence [A]", "width [V]", "area [A·V]", "charge [C]", "left_foot [V]", "right_foot [V]",
        "left_foot_baseline [A]", "right_foot_baseline [A]",
    ]

    /// The fits' header.
    public static let fitHeader = [
        "run", "circuit", "weighting", "converged", "parameter", "unit", "value", "error", "chi_squared",
        "reduced_chi_squared", "iterations", "failure",
    ]

    /// The table of `analyses`: peaks when any of them has peak results, else fits (a run has one kind).
    public static func table(_ analyses: [RunAnalysis]) -> String {
        let anyPeaks = analyses.contains { analysis in
            analysis.results.contains { if case .peaks = $0 { true } else { false } }
        }
        return anyPeaks ? peaks(analyses) : fits(analyses)
    }

    /// One row per peak.
    public static func peaks(_ analyses: [RunAnalysis]) -> String {
        var text = peakHeader.joined(separator: ",") + "\n"
        for analysis in analyses {
            for (current, peak) in analysis.peaks {
                let cells =
                    ["\(analysis.run)", cell(current), "\(peak.scan)", "\(peak.sweep)", peak.direction.rawValue]
                    + [
                        peak.potential, peak.current, peak.baselineCurrent, peak.height, peak.prominence, peak.width,
                        peak.area,
                    ].map(number) + [peak.charge.map(number) ?? ""]
                    + [peak.leftFoot, peak.rightFoot, peak.leftFootBaseline, peak.rightFootBaseline].map(number)
                text += cells.joined(separator: ",") + "\n"
            }
        }
        return text
    }

    /// One row per fitted parameter; one row saying why for a fit that did not converge.
    public static func fits(_ analyses: [RunAnalysis]) -> String {
        var text = fitHeader.joined(separator: ",") + "\n"
        for analysis in analyses {
            if let fit = analysis.fit {
                for (index, parameter) in fit.circuit.parameters.enumerated() {
                    let cells = [
                        "\(analysis.run)", cell(fit.circuit.code), fit.weighting.rawValue, "true", parameter.name,
                        cell(parameter.unit), number(fit.values[index]), number(fit.standardErrors[index]),
                        number(fit.chiSquared), number(fit.reducedChiSquared), "\(fit.iterations)", "",
                    ]
                    text += cells.joined(separator: ",") + "\n"
                }
            }
            if let (circuit, error) = analysis.fitFailure {
                let cells = ["\(analysis.run)", cell(circuit.code), "", "false", "", "", "", "", "", "", ""]
                text += (cells + [cell(error.description)]).joined(separator: ",") + "\n"
            }
        }
        return text
    }

    /// A number as Swift prints a `Double` (round-trips exactly); empty when it is not finite.
    static func number(_ value: Double) -> String { value.isFinite ? "\(value)" : "" }

    /// A text cell, quoted when it holds a comma, a quote or a line break.
    static func cell(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.map { $0 == "\"" ? "\"\"" : String($0) }.joined() + "\""
    }
}
