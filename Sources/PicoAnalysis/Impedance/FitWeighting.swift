/// How each point's residual is weighted in a circuit fit.
public enum FitWeighting: String, Sendable, Hashable, Codable, CaseIterable {
    /// Residuals in ohms: the large impedances dominate.
    case unit
    /// Both parts divided by the point's |Z| (impedance.py's `weight_by_modulus`).
    case modulus
    /// The real part divided by |Z′|, the imaginary by |Z″| (Boukamp's proportional weighting).
    case proportional
}
