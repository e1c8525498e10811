import ComplexModule

/// A fit as JSON: the circuit's code, the weighting, the iterations, `chi_squared` and
/// `reduced_chi_squared`, each parameter (`name`, `unit`, `value`, `error`: null when the parameters
/// cannot be told apart) and each residual as `[real, imaginary]`.
extension CircuitFit: Codable {
    private enum Keys: String, CodingKey {
        case circuit, weighting, iterations, chiSquared, reducedChiSquared, parameters, residuals
    }

    private struct Parameter: Codable {
        var name: String
        var unit: String
        var value: Double
        var error: Double?
    }

    /// Writes the fit as the JSON object the extension describes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(circuit, forKey: .circuit)
        try container.encode(weighting, forKey: .weighting)
        try container.encode(iterations, forKey: .iterations)
        try container.encode(chiSquared, forKey: .chiSquared)
        try container.encode(reducedChiSquared, forKey: .reducedChiSquared)
        let parameters = circuit.parameters.enumerated().map { index, parameter in
            Parameter(
                name: parameter.name,
                unit: parameter.unit,
                value: values[index],
                error: standardErrors[index].isFinite ? standardErrors[index] : nil
            )
        }
        try container.encode(parameters, forKey: .parameters)
        try container.encode(residuals.map { [$0.real, $0.imaginary] }, forKey: .residuals)
    }

    /// Reads what `encode(to:)` wrote; the parameters must be the circuit's.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let circuit = try container.decode(EquivalentCircuit.self, forKey: .circuit)
        let parameters = try container.decode([Parameter].self, forKey: .parameters)
        guard parameters.map(\.name) == circuit.parameters.map(\.name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .parameters,
                in: container,
                debugDescription: "the parameters are not \(circuit.code)'s"
            )
        }
        let residuals = try container.decode([[Double]].self, forKey: .residuals)
        self.init(
            circuit: circuit,
            weighting: try container.decode(FitWeighting.self, forKey: .weighting),
            values: parameters.map(\.value),
            standardErrors: parameters.map { $0.error ?? .nan },
            chiSquared: try container.decode(Double.self, forKey: .chiSquared),
            reducedChiSquared: try container.decode(Double.self, forKey: .reducedChiSquared),
            residuals: residuals.map { Complex($0.first ?? .nan, $0.count > 1 ? $0[1] : .nan) },
            iterations: try container.decode(Int.self, forKey: .iterations)
        )
    }
}
