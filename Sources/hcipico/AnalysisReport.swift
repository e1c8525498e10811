import Foundation
import PicoAnalysis

/// The results of `analyze`, as tables for people or JSON for programs.
struct AnalysisReport {
    let analyses: [RunAnalysis]

    init(runs: [RunData], settings: AnalysisSettings) {
        analyses = runs.map { RunAnalysis($0, settings: settings) }
    }

    /// The fits that did not converge, by run.
    var failures: [(run: Int, error: CircuitFitError)] {
        analyses.flatMap { analysis in
            analysis.results.compactMap { result in
                if case .fitFailed(_, let error) = result { (analysis.run, error) } else { nil }
            }
        }
    }

    /// Tables: a block per run and current column or fit.
    var text: String {
        var blocks: [String] = []
        for analysis in analyses {
            for result in analysis.results {
                switch result {
                case .peaks(let current, let peaks):
                    let title =
                        "run \(analysis.run), current \(current): \(peaks.count) peak\(peaks.count == 1 ? "" : "s")"
                    guard !peaks.isEmpty else {
                        blocks.append(title)
                        continue
                    }
                    let rows = peaks.map { peak in
                        [
                            "\(peak.scan)", "\(peak.sweep)", peak.direction.rawValue, Self.number(peak.potential),
                            Self.number(peak.current), Self.number(peak.height), Self.number(peak.width),
                            Self.number(peak.area), peak.charge.map(Self.number) ?? "-",
                        ]
                    }
                    let header = [
                        "scan", "sweep", "direction", "E [V]", "I [A]", "height [A]", "width [V]", "area [A·V]",
                        "charge [C]",
                    ]
                    blocks.append(title + "\n" + TextColumn.table(header: header, rows: rows))
                case .fit(let fit):
                    let title =
                        "run \(analysis.run): \(fit.circuit) fitted (\(fit.weighting.rawValue) weighting, "
                        + "\(fit.iterations) iterations), chi-squared \(Self.number(fit.chiSquared)) "
                        + "(reduced \(Self.number(fit.reducedChiSquared)))"
                    let rows = fit.circuit.parameters.enumerated().map { index, parameter in
                        [
                            parameter.name, Self.number(fit.values[index]), Self.number(fit.standardErrors[index]),
                            Self.percent(fit.standardErrors[index], of: fit.values[index]), parameter.unit,
                        ]
                    }
                    blocks.append(
                        title + "\n"
                            + TextColumn.table(header: ["parameter", "value", "error", "error %", "unit"], rows: rows)
                    )
                case .fitFailed(let circuit, let error):
                    blocks.append("run \(analysis.run): \(circuit) not fitted: \(error)")
                }
            }
        }
        return blocks.joined(separator: "\n\n")
    }

    /// `{"runs": [{"run": 1, "peaks": {"c": [...]}}, {"run": 2, "fit": {...}}]}`.
    var json: String {
        let data = (try? RunAnalysis.encoder.encode(["runs": analyses])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Four significant digits.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        return String(format: "%.4g", value)
    }

    static func percent(_ error: Double, of value: Double) -> String {
        guard error.isFinite, value != 0 else { return "-" }
        return String(format: "%.2f", 100 * error / abs(value))
    }
}
