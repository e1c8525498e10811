import AnalysisSamples
import ComplexModule
import Foundation
import PicoAnalysis
import Testing

/// The anchors' Python, when the environment names one.
let analysisPython = ProcessInfo.processInfo.environment["HCIPICO_ANALYSIS_PYTHON"]
/// PalmSens' published EIS result of a 10 kΩ dummy cell (`MSExampleEIS.csv` of their MethodSCRIPT
/// examples), when the environment names where it is: the file's licence keeps it out of this repository
/// (`make peers-analysis PUBLISHED_EIS=…/MSExampleEIS.csv`).
let publishedEIS = ProcessInfo.processInfo.environment["HCIPICO_PUBLISHED_EIS"].flatMap { $0.isEmpty ? nil : $0 }

/// The same data through hcipico's analysis and through scipy and impedance.py (the pinned .venv/, run by
/// `Tests/Peers/analysis_anchor.py`; `make peers-analysis` sets HCIPICO_ANALYSIS_PYTHON, a plain
/// `swift test` skips these): the same peaks with prominences and heights within 0.5 %, the same smoothed
/// curve, and circuit values within 0.5 % with standard errors within 10 %.
@Suite(.enabled(if: analysisPython != nil, "needs HCIPICO_ANALYSIS_PYTHON (make peers-analysis)"))
struct AnalysisAnchorTests {
    static let python = analysisPython
    /// Runs the anchor over `jobs` and returns its results.
    static func anchor(_ jobs: [[String: Any]]) throws -> [[String: Any]] {
        try AnalysisAnchor.run(jobs, python: URL(fileURLWithPath: try #require(python)))
    }

    /// Sweeps with one to three peaks, with and without noise, smoothed or not.
    static let sweeps: [(name: String, sweep: (potentials: [Double], currents: [Double]), window: Int?)] = [
        (
            "one peak",
            SyntheticCurves.sweep(
                from: -0.5,
                to: 0.5,
                step: 0.005,
                bumps: [.init(centre: 0.1, height: 1e-6, sigma: 0.05)]
            ), nil
        ),
        (
            "one peak, noisy",
            SyntheticCurves.sweep(
                from: -0.5,
                to: 0.5,
                step: 0.005,
                bumps: [.init(centre: 0.1, height: 1e-6, sigma: 0.05)],
                noise: 2e-8
            ), 11
        ),
        (
            "three peaks, noisy",
            SyntheticCurves.threePeaks(step: 0.002),
            21
        ),
        (
            "a falling sweep",
            SyntheticCurves.sweep(
                from: 0.6,
                to: -0.4,
                step: 0.004,
                bumps: [.init(centre: 0.1, height: -1e-6, sigma: 0.04)],
                noise: 1e-8
            ), 9
        ),
    ]

    @Test func peaksAgreeWithScipy() throws {
        let minimumHeight = 5e-8
        let minimumSamples = 3.0
        var jobs: [[String: Any]] = []
        for item in Self.sweeps {
            let rising = item.sweep.potentials.last! > item.sweep.potentials.first!
            let signed = item.sweep.currents.map { rising ? $0 : -$0 }
            var job: [String: Any] = [
                "kind": "peaks", "y": signed, "order": 2, "prominence": minimumHeight, "width": minimumSamples,
            ]
            job["window"] = item.window ?? NSNull()
            jobs.append(job)
        }
        let results = try Self.anchor(jobs)
        #expect(results.count == jobs.count)
        for (item, result) in zip(Self.sweeps, results) {
            let step = abs(item.sweep.potentials[1] - item.sweep.potentials[0])
            let settings = PeakSettings(
                smoothingWindow: item.window,
                minimumHeight: minimumHeight,
                minimumWidth: minimumSamples * step
            )
            let ours = PeakAnalysis.peaks(
                in: Voltammogram(potentials: item.sweep.potentials, currents: item.sweep.currents),
                settings: settings
            )
            let indices = try #require(result["peaks"] as? [Int])
            #expect(!indices.isEmpty, "\(item.name): scipy found no peak")
            #expect(ours.map(\.index) == indices, "\(item.name): \(ours.map(\.index)) vs scipy \(indices)")
            let smoothed = try #require(result["smoothed"] as? [Double])
            let prominences = try #require(result["prominences"] as? [Double])
            let left = try #require(result["left_bases"] as? [Int])
            let right = try #require(result["right_bases"] as? [Int])
            for (n, peak) in ours.enumerated() where n < indices.count {
                #expect(abs(peak.prominence - prominences[n]) <= 0.005 * prominences[n], "\(item.name)")
                // The height above the line between scipy's bases on scipy's smoothed curve.
                let (e1, e2) = (item.sweep.potentials[left[n]], item.sweep.potentials[right[n]])
                let line =
                    smoothed[left[n]] + (smoothed[right[n]] - smoothed[left[n]]) * (peak.potential - e1) / (e2 - e1)
                let height = abs(smoothed[indices[n]] - line)
                #expect(abs(abs(peak.height) - height) <= 0.005 * height, "\(item.name): \(peak.height) vs \(height)")
            }
        }
    }

    /// Randles cells and a CPE-Warburg cell, noise-free and with 1 % noise, fitted by both from the same
    /// starting values (hcipico's guess) with each weighting both offer.
    /// The published dummy cell, read as `analyze` reads it: R alone fits to its 10 kΩ with a tiny χ², and
    /// to what impedance.py gives for the same points within 0.5 %.
    @Test(.enabled(if: publishedEIS != nil, "needs HCIPICO_PUBLISHED_EIS (make peers-analysis PUBLISHED_EIS=…)"))
    func thePublishedDummyCellFitsAsItsResistance() throws {
        let text = try String(contentsOfFile: try #require(publishedEIS), encoding: .utf8)
        guard case .impedance(_, let spectrum) = try #require(RunData.runs(of: try PointTable(csv: text)).first) else {
            Issue.record("the published file is not read as a spectrum")
            return
        }
        #expect(spectrum.frequencies.count == 51)
        let circuit = try EquivalentCircuit("R")
        let initial = InitialGuess.values(for: circuit, spectrum)
        let fit = try CircuitFitter.fit(circuit, to: spectrum, initial: initial, weighting: .modulus)
        #expect(abs(fit.values[0] - 10_000) <= 0.02 * 10_000, "\(fit.values)")
        #expect(fit.reducedChiSquared < 1e-3, "\(fit.reducedChiSquared)")
        let anchor = try Self.anchor([
            [
                "kind": "fit", "circuit": "R", "f": spectrum.frequencies, "zr": spectrum.impedances.map(\.real),
                "zi": spectrum.impedances.map(\.imaginary), "initial": initial, "weighting": "modulus",
            ]
        ])
        let values = try #require(anchor.first?["values"] as? [Double])
        #expect(abs(fit.values[0] - values[0]) <= 0.005 * values[0], "\(fit.values[0]) vs \(values[0])")
    }

    @Test func circuitFitsAgreeWithImpedancePy() throws {
        let cases: [(code: String, truth: [Double], noise: Double)] = [
            ("R(RC)", [560, 10_000, 33e-9], 0),
            ("R(RC)", [100, 2_000, 1e-6], 0.01),
            ("R(Q(RW))", [50, 2e-5, 0.85, 500, 150], 0.01),
            ("R(C(RW))", [20, 5e-7, 2_000, 300], 0.005),
        ]
        var jobs: [[String: Any]] = []
        var inputs: [(EquivalentCircuit, ImpedanceSpectrum, [Double], FitWeighting)] = []
        for item in cases {
            let circuit = try EquivalentCircuit(item.code)
            let spectrum = try CircuitFitterTests.spectrum(item.code, item.truth, noise: item.noise)
            let initial = InitialGuess.values(for: circuit, spectrum)
            for weighting in [FitWeighting.unit, .modulus] {
                inputs.append((circuit, spectrum, initial, weighting))
                jobs.append([
                    "kind": "fit", "circuit": item.code, "f": spectrum.frequencies,
                    "zr": spectrum.impedances.map(\.real), "zi": spectrum.impedances.map(\.imaginary),
                    "initial": initial, "weighting": weighting.rawValue,
                ])
            }
        }
        let results = try Self.anchor(jobs)
        #expect(results.count == jobs.count && jobs.count == 8)
        var compared = 0
        defer { #expect(compared > 10, "standard errors compared: \(compared)") }
        for ((circuit, spectrum, initial, weighting), result) in zip(inputs, results) {
            let fit = try CircuitFitter.fit(circuit, to: spectrum, initial: initial, weighting: weighting)
            let values = try #require(result["values"] as? [Double])
            let errors = try #require(result["errors"] as? [Double])
            for (k, parameter) in circuit.parameters.enumerated() {
                let label = "\(circuit) \(weighting) \(parameter.name)"
                #expect(
                    abs(fit.values[k] - values[k]) <= 0.005 * abs(values[k]),
                    "\(label): \(fit.values[k]) vs \(values[k])"
                )
                // Errors of a noise-free fit are rounding; compare them where the noise makes them real.
                if errors[k] > 1e-6 * abs(values[k]) {
                    compared += 1
                    #expect(
                        abs(fit.standardErrors[k] - errors[k]) <= 0.1 * errors[k],
                        "\(label): ±\(fit.standardErrors[k]) vs ±\(errors[k])"
                    )
                }
            }
        }
    }
}
