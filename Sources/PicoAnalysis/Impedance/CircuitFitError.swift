/// Why a circuit was not fitted: no numbers are given for a fit that did not converge.
public enum CircuitFitError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Fewer points than the fit needs (each point gives two numbers; there must be more than parameters).
    case tooFewPoints(points: Int, parameters: Int)
    /// An initial value of the wrong count or out of bounds (every value positive, a CPE's n at most 1).
    case badInitialValues(String)
    /// A frequency or impedance that is not a finite number (or a frequency not above 0).
    case badData(index: Int)
    /// The minimisation did not reach a minimum.
    case didNotConverge(iterations: Int, reason: String)

    /// In words.
    public var description: String {
        switch self {
        case .tooFewPoints(let points, let parameters):
            "\(points) points are too few for \(parameters) parameters"
        case .badInitialValues(let why): "initial values: \(why)"
        case .badData(let index): "point \(index + 1) is not a finite impedance at a positive frequency"
        case .didNotConverge(let iterations, let reason):
            "the fit did not converge after \(iterations) iterations: \(reason)"
        }
    }
}
