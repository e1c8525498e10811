/// The results of one run: the peaks of each of its voltammograms, or the fit of a circuit to its spectrum.
public struct RunAnalysis: Sendable {
    /// One result.
    public enum Result: Sendable {
        /// The peaks of the voltammogram of one current column (`c`; for SWV also `f` and `r`).
        case peaks(current: String, [VoltammetricPeak])
        /// The circuit fitted to the spectrum.
        case fit(CircuitFit)
        /// Why the circuit was not fitted: no numbers.
        case fitFailed(EquivalentCircuit, CircuitFitError)
    }

    /// The run's number in its table.
    public let run: Int
    /// Its results.
    public let results: [Result]

    /// Analyses `data`: peaks with `settings` (charges with `scanRate`), or a fit of `circuit` (given up
    /// after `maximumIterations`).
    public init(
        _ data: RunData,
        settings: PeakSettings = PeakSettings(),
        scanRate: Double? = nil,
        circuit: EquivalentCircuit,
        weighting: FitWeighting = .modulus,
        maximumIterations: Int = 500
    ) {
        switch data {
        case .voltammetry(let run, let curves):
            self.run = run
            results = curves.map {
                .peaks(
                    current: $0.current,
                    PeakAnalysis.peaks(in: $0.voltammogram, settings: settings, scanRate: scanRate)
                )
            }
        case .impedance(let run, let spectrum):
            self.run = run
            do throws(CircuitFitError) {
                results = [
                    .fit(
                        try CircuitFitter.fit(
                            circuit,
                            to: spectrum,
                            weighting: weighting,
                            maximumIterations: maximumIterations
                        )
                    )
                ]
            } catch {
                results = [.fitFailed(circuit, error)]
            }
        }
    }
}
