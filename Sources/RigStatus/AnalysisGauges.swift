import PicoAnalysis
import RigJournal

/// The gauges of a device's latest analysed run, for `/metrics`: which run it was, each curve's and
/// scan's most prominent peak per direction (its potential and its height above the baseline), and a
/// fit's parameters, χ² and whether it converged.
struct AnalysisGauges {
    /// One gauge: its name, labels and value.
    struct Gauge: Hashable {
        var name: String
        var labels: [Label]
        var value: Double
    }

    struct Label: Hashable {
        var name: String
        var value: String
    }

    /// Every metric this makes, with its `# HELP` text.
    static let help: [String: String] = [
        "hcipico_analysis_run": "The device's run (its number) the analysis gauges are from: its latest analysed run.",
        "hcipico_peak_potential_volts":
            "Potential of the most prominent peak of the latest analysed run, by current column, scan and direction.",
        "hcipico_peak_height_amperes":
            "Height above the baseline of that peak (negative for a cathodic peak).",
        "hcipico_fit_parameter": "A fitted circuit parameter of the latest analysed run, in its unit.",
        "hcipico_fit_chi_squared": "Chi-squared of the latest analysed run's circuit fit.",
        "hcipico_fit_converged": "1 when the latest analysed run's circuit fit converged, 0 when it did not.",
    ]

    /// The gauges of `device`'s latest analysed run (`run` is the device's run number).
    static func of(device: String, run: Int, analysis: RunAnalysis) -> [Gauge] {
        let base = [Label(name: "device", value: device)]
        var gauges = [Gauge(name: "hcipico_analysis_run", labels: base, value: Double(run))]
        var strongest: [[Label]: VoltammetricPeak] = [:]
        for (curve, peak) in analysis.peaks {
            let labels =
                base + [
                    Label(name: "curve", value: curve), Label(name: "scan", value: "\(peak.scan)"),
                    Label(name: "direction", value: peak.direction.rawValue),
                ]
            if let known = strongest[labels], known.prominence >= peak.prominence { continue }
            strongest[labels] = peak
        }
        for (labels, peak) in strongest {
            gauges.append(Gauge(name: "hcipico_peak_potential_volts", labels: labels, value: peak.potential))
            gauges.append(Gauge(name: "hcipico_peak_height_amperes", labels: labels, value: peak.height))
        }
        if let fit = analysis.fit {
            let circuit = base + [Label(name: "circuit", value: fit.circuit.code)]
            for (index, parameter) in fit.circuit.parameters.enumerated() {
                let labels =
                    circuit + [
                        Label(name: "parameter", value: parameter.name), Label(name: "unit", value: parameter.unit),
                    ]
                gauges.append(Gauge(name: "hcipico_fit_parameter", labels: labels, value: fit.values[index]))
            }
            gauges.append(Gauge(name: "hcipico_fit_chi_squared", labels: circuit, value: fit.chiSquared))
            gauges.append(Gauge(name: "hcipico_fit_converged", labels: circuit, value: 1))
        }
        if let failure = analysis.fitFailure {
            let circuit = base + [Label(name: "circuit", value: failure.circuit.code)]
            gauges.append(Gauge(name: "hcipico_fit_converged", labels: circuit, value: 0))
        }
        return gauges
    }
}
