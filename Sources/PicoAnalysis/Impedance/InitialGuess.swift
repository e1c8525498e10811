import ComplexModule

/// Starting values for a circuit fit, read from the spectrum: the first resistor takes the real part at
/// the highest frequency (the solution resistance), the other resistors share the rest of the real part's
/// span, capacitors and CPEs are sized to turn over where −Z″ peaks, an inductor from a positive Z″ at the
/// top, a Warburg element from the lowest frequency.
public enum InitialGuess {
    /// One value per parameter of `circuit`.
    public static func values(for circuit: EquivalentCircuit, _ spectrum: ImpedanceSpectrum) -> [Double] {
        let points = zip(spectrum.frequencies, spectrum.impedances).sorted { $0.0 < $1.0 }
        guard let low = points.first, let high = points.last else {
            return circuit.parameters.map { $0.name.hasSuffix(".n") ? 0.9 : 1 }
        }
        let scale = max(points.map { $0.1.length }.max() ?? 1, 1e-12)
        let solution = max(high.1.real, 1e-6 * scale)
        let resistors = circuit.parameters.filter { $0.element == .resistor }.count
        let rest = max(low.1.real - high.1.real, 1e-3 * scale) / Double(max(1, resistors - 1))
        // Where −Z″ is largest: the time constant of the main arc.
        let arc = points.max { -$0.1.imaginary < -$1.1.imaginary } ?? high
        let arcOmega = 2 * Double.pi * arc.0
        let lowOmega = 2 * Double.pi * low.0
        let highOmega = 2 * Double.pi * high.0
        var seenResistor = false
        return circuit.parameters.map { parameter in
            switch parameter.element {
            case .resistor:
                defer { seenResistor = true }
                return seenResistor ? rest : solution
            case .capacitor:
                return 1 / (arcOmega * rest)
            case .constantPhase:
                return parameter.name.hasSuffix(".n") ? 0.9 : 1 / (arcOmega * rest)
            case .inductor:
                return high.1.imaginary > 0 ? high.1.imaginary / highOmega : 1e-3 * solution / highOmega
            case .warburg:
                return max(abs(low.1.imaginary) * lowOmega.squareRoot() / 2, 1e-6 * scale)
            }
        }
    }
}
