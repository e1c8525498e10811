/// The results of one run: the peaks of each of its voltammograms, or the fit of a circuit to its spectrum.
/// It is `Codable` as the JSON every output carries (`hcipico analyze --json`, a rig's journal and
/// exports, the JSON Lines end event): `{"run":1,"peaks":{"c":[…]}}` or `{"run":2,"fit":{…}}`, keys in
/// snake case (`RunAnalysis.encoder`).
public struct RunAnalysis: Sendable, Hashable {
    /// One result.
    public enum Result: Sendable, Hashable {
        /// The peaks of the voltammogram of one current column (`c`; for SWV also `f` and `r`).
        case peaks(current: String, [VoltammetricPeak])
        /// The circuit fitted to the spectrum.
        case fit(CircuitFit)
        /// Why the circuit was not fitted: no numbers.
        case fitFailed(EquivalentCircuit, CircuitFitError)
    }

    /// The run's number (its `run` column; a device's run number).
    public let run: Int
    /// Its results.
    public let results: [Result]

    /// Results as they are.
    public init(run: Int, results: [Result]) {
        self.run = run
        self.results = results
    }

    /// Analyses `data` with `settings`: peaks in each voltammogram, or a fit of the settings' circuit.
    public init(_ data: RunData, settings: AnalysisSettings = AnalysisSettings()) {
        switch data {
        case .voltammetry(let run, let curves):
            self.run = run
            results = curves.map {
                .peaks(
                    current: $0.current,
                    PeakAnalysis.peaks(in: $0.voltammogram, settings: settings.peaks, scanRate: settings.scanRate)
                )
            }
        case .impedance(let run, let spectrum):
            self.run = run
            do throws(CircuitFitError) {
                results = [
                    .fit(
                        try CircuitFitter.fit(
                            settings.circuit,
                            to: spectrum,
                            weighting: settings.weighting,
                            maximumIterations: settings.maximumIterations
                        )
                    )
                ]
            } catch {
                results = [.fitFailed(settings.circuit, error)]
            }
        }
    }

    /// Every peak found, with its current column's name.
    public var peaks: [(current: String, peak: VoltammetricPeak)] {
        results.flatMap { result -> [(current: String, peak: VoltammetricPeak)] in
            if case .peaks(let current, let peaks) = result { return peaks.map { (current, $0) } }
            return []
        }
    }

    /// Every peak with its order within its current column and scan (from 1): the key the journal's and
    /// PostgreSQL's `peaks` tables use.
    public var numberedPeaks: [(current: String, seq: Int, peak: VoltammetricPeak)] {
        var order: [String: Int] = [:]
        return peaks.map { current, peak in
            let key = "\(current) \(peak.scan)"
            let seq = order[key, default: 0] + 1
            order[key] = seq
            return (current, seq, peak)
        }
    }

    /// The fit, when the run's circuit was fitted.
    public var fit: CircuitFit? {
        for case .fit(let fit) in results { return fit }
        return nil
    }

    /// Why the circuit was not fitted, when it was not.
    public var fitFailure: (circuit: EquivalentCircuit, error: CircuitFitError)? {
        for case .fitFailed(let circuit, let error) in results { return (circuit, error) }
        return nil
    }
}
