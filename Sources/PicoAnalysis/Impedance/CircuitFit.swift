public import ComplexModule
import RealModule

/// A circuit fitted to a spectrum: each parameter's value and standard error, χ² and the residuals.
public struct CircuitFit: Sendable, Hashable {
    /// The circuit.
    public let circuit: EquivalentCircuit
    /// The weighting the fit used.
    public let weighting: FitWeighting
    /// Each parameter's fitted value, in the circuit's order.
    public let values: [Double]
    /// Each parameter's standard error (from the covariance at the minimum, scaled by the residuals'
    /// variance); NaN when the parameters cannot be told apart.
    public let standardErrors: [Double]
    /// The sum of the squared weighted residuals.
    public let chiSquared: Double
    /// χ² over the degrees of freedom (twice the points less the parameters).
    public let reducedChiSquared: Double
    /// Each point's residual, model less data, divided by its weights.
    public let residuals: [Complex<Double>]
    /// The iterations the minimisation took.
    public let iterations: Int

    /// The circuit's impedance with the fitted values.
    public func impedance(at frequency: Double) -> Complex<Double> { circuit.impedance(at: frequency, values) }
}
