import Foundation
public import PicoAnalysis

/// The results of analyses (`hcipico analyze`, a run's end in `connect` and the console), as tables
/// for people or JSON for programs.
public struct AnalysisReport {
    /// The analyses, a run each.
    public let analyses: [RunAnalysis]
    /// How each analysis's run is named in the tables: `run 2` in a CSV, `cv run 3 (id 12)` in a journal.
    public let names: [String]

    /// Analyses each run with `settings`; runs are named `run N`.
    public init(runs: [RunData], settings: AnalysisSettings) {
        analyses = runs.map { RunAnalysis($0, settings: settings) }
        names = analyses.map { "run \($0.run)" }
    }

    /// Analyses made already, with the name each run has in the tables.
    public init(analyses: [RunAnalysis], names: [String]) {
        self.analyses = analyses
        self.names = names
    }

    /// The fits that did not converge, by run name.
    public var failures: [(run: String, error: CircuitFitError)] {
        zip(analyses, names).compactMap { analysis, name in analysis.fitFailure.map { (name, $0.error) } }
    }

    /// Tables: a block per run and current column or fit.
    public var text: String {
        var blocks: [String] = []
        for (analysis, name) in zip(analyses, names) {
            for result in analysis.results {
                switch result {
                case .peaks(let current, let peaks):
                    let title =
                        "\(name), current \(current): \(peaks.count) peak\(peaks.count == 1 ? "" : "s")"
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
                        "\(name): \(fit.circuit) fitted (\(fit.weighting.rawValue) weighting, "
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
                    blocks.append("\(name): \(circuit) not fitted: \(error)")
                }
            }
        }
        return blocks.joined(separator: "\n\n")
    }

    /// `{"runs": [{"run": 1, "peaks": {"c": [...]}}, {"run": 2, "fit": {...}}]}`.
    public var json: String {
        let data = (try? RunAnalysis.encoder.encode(["runs": analyses])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Four significant digits.
    public static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        return String(format: "%.4g", value)
    }

    /// A standard error as a percentage of its value, two decimals; `-` when it has none.
    public static func percent(_ error: Double, of value: Double) -> String {
        guard error.isFinite, value != 0 else { return "-" }
        return String(format: "%.2f", 100 * error / abs(value))
    }
}
