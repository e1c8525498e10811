import AnalysisSamples
import ComplexModule
import Foundation
import PicoAnalysis

/// `Bench analysis`: peaks and circuit fits by PicoAnalysis beside scipy's peak pipeline (savgol_filter +
/// find_peaks) and impedance.py's CustomCircuit fit, on the same inputs in the same run. The anchors run in
/// the pinned .venv/ (`Tests/Peers/analysis_anchor.py --bench`), which times the calls a user makes; here
/// each figure is the median of its rounds, and the ratio is the anchor's time over ours.
enum AnalysisBench {
    struct Case {
        let name: String
        let job: [String: Any]
        let ours: () -> Void
    }

    static let suite = BenchSuite(name: "analysis", summary: "peaks vs scipy, circuit fits vs impedance.py") {
        json in
        let cases = try peakCases() + fitCases()
        let rounds = 200
        let ourTimes = cases.map { item in MethodsBench.median(rounds) { item.ours() } }
        let anchors = try anchorTimes(cases.map(\.job), rounds: rounds)
        if json {
            let items = zip(cases, zip(ourTimes, anchors)).map { item, times in
                "{\"name\":\"\(item.name)\",\"ours_us\":\(times.0),\"anchor_us\":\(times.1.map { "\($0)" } ?? "null")}"
            }
            print("{\"suite\":\"analysis\",\"rows\":[\(items.joined(separator: ","))]}")
            return
        }
        print("analysis: µs per call (median of \(rounds)); the anchor is scipy for peaks, impedance.py for fits")
        print("what                                   hcipico    anchor    anchor / hcipico")
        for (item, (ours, anchor)) in zip(cases, zip(ourTimes, anchors)) {
            let anchorText = anchor.map { String(format: "%9.1f", $0) } ?? "        -"
            let ratio = anchor.map { String(format: "%8.1f×", $0 / ours) } ?? "  (no .venv)"
            print(
                item.name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: " %9.1f ", ours)
                    + anchorText + "   " + ratio
            )
        }
    }

    /// Noisy sweeps of 501 and 1,601 points with one and three peaks, smoothed.
    static func peakCases() throws -> [Case] {
        let sweeps: [(String, (potentials: [Double], currents: [Double]), Int)] = [
            (
                "peaks: 501 points, 1 peak",
                SyntheticCurves.sweep(
                    from: -0.5,
                    to: 0.5,
                    step: 0.002,
                    bumps: [.init(centre: 0.1, height: 1e-6, sigma: 0.05)],
                    noise: 2e-8
                ), 11
            ),
            (
                "peaks: 1601 points, 3 peaks",
                SyntheticCurves.threePeaks(step: 0.001), 21
            ),
        ]
        return sweeps.map { name, sweep, window in
            let step = abs(sweep.potentials[1] - sweep.potentials[0])
            let settings = PeakSettings(smoothingWindow: window, minimumHeight: 5e-8, minimumWidth: 3 * step)
            let voltammogram = Voltammogram(potentials: sweep.potentials, currents: sweep.currents)
            let job: [String: Any] = [
                "kind": "peaks", "y": sweep.currents, "window": window, "order": 2, "prominence": 5e-8, "width": 3,
            ]
            return Case(name: name, job: job) { _ = PeakAnalysis.peaks(in: voltammogram, settings: settings) }
        }
    }

    /// Randles cells over 51 frequencies with 1 % noise, from hcipico's guessed starting values (given to both).
    static func fitCases() throws -> [Case] {
        let items: [(String, [Double])] = [("R(RC)", [100, 2_000, 1e-6]), ("R(Q(RW))", [50, 2e-5, 0.85, 500, 150])]
        return try items.map { code, truth in
            let circuit = try EquivalentCircuit(code)
            var generator = SyntheticCurves.Seeded(state: 5)
            let frequencies = SyntheticCurves.frequencies()
            let spectrum = ImpedanceSpectrum(
                frequencies: frequencies,
                impedances: frequencies.map { f in
                    let z = circuit.impedance(at: f, truth)
                    return Complex(
                        z.real * (1 + 0.01 * Double.random(in: -1...1, using: &generator)),
                        z.imaginary * (1 + 0.01 * Double.random(in: -1...1, using: &generator))
                    )
                }
            )
            let initial = InitialGuess.values(for: circuit, spectrum)
            _ = try CircuitFitter.fit(circuit, to: spectrum, initial: initial)
            let job: [String: Any] = [
                "kind": "fit", "circuit": code, "f": frequencies, "zr": spectrum.impedances.map(\.real),
                "zi": spectrum.impedances.map(\.imaginary), "initial": initial, "weighting": "modulus",
            ]
            return Case(name: "fit: \(code), 51 points", job: job) {
                _ = try? CircuitFitter.fit(circuit, to: spectrum, initial: initial)
            }
        }
    }

    /// The anchor's µs per job, or nils when the pinned .venv/ is not there.
    static func anchorTimes(_ jobs: [[String: Any]], rounds: Int) throws -> [Double?] {
        guard let python = AnalysisAnchor.venvPython else { return [Double?](repeating: nil, count: jobs.count) }
        return try AnalysisAnchor.run(jobs, python: python, bench: rounds).map {
            ($0["seconds"] as? Double).map { $0 * 1e6 }
        }
    }
}
