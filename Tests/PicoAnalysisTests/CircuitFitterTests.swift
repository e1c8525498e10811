import AnalysisSamples
import ComplexModule
import Foundation
import PicoAnalysis
import Testing

/// Circuit fits: noise-free spectra give back their circuit's values within 1 % from guessed starting
/// values; noisy ones converge with a small χ²; a resistor with a little stray capacitance fits as its
/// resistance; a fit that cannot finish says so instead of giving numbers.
@Suite struct CircuitFitterTests {
    static func spectrum(_ code: String, _ values: [Double], noise: Double = 0) throws -> ImpedanceSpectrum {
        let circuit = try EquivalentCircuit(code)
        var generator = SyntheticCurves.Seeded(state: 11)
        let frequencies = SyntheticCurves.frequencies()
        return ImpedanceSpectrum(
            frequencies: frequencies,
            impedances: frequencies.map { f in
                let z = circuit.impedance(at: f, values)
                let a = 1 + noise * Double.random(in: -1...1, using: &generator)
                let b = 1 + noise * Double.random(in: -1...1, using: &generator)
                return Complex(z.real * a, z.imaginary * b)
            }
        )
    }

    @Test(arguments: [
        ("R(RC)", [100.0, 1_000, 1e-6]),
        ("R(Q(RW))", [50.0, 2e-5, 0.85, 500, 150]),
        ("R(C(RW))", [20.0, 5e-7, 2_000, 300]),
        ("LR(RC)", [1e-6, 30.0, 800, 2e-6]),
    ])
    func noiseFreeSpectraGiveBackTheirValues(code: String, truth: [Double]) throws {
        let circuit = try EquivalentCircuit(code)
        for weighting in FitWeighting.allCases {
            let fit = try CircuitFitter.fit(circuit, to: try Self.spectrum(code, truth), weighting: weighting)
            for (parameter, (value, expected)) in zip(circuit.parameters, zip(fit.values, truth)) {
                #expect(abs(value - expected) <= 0.01 * expected, "\(code) \(weighting) \(parameter.name): \(value)")
            }
            #expect(fit.reducedChiSquared < 1e-10, "\(code) \(weighting): \(fit.reducedChiSquared)")
        }
    }

    @Test func noisySpectraConvergeWithErrorsThatCoverTheTruth() throws {
        let truth = [50.0, 2e-5, 0.85, 500, 150]
        let circuit = try EquivalentCircuit("R(Q(RW))")
        let fit = try CircuitFitter.fit(circuit, to: try Self.spectrum("R(Q(RW))", truth, noise: 0.01))
        #expect(fit.reducedChiSquared < 1e-3 && fit.residuals.count == 51)
        for (index, expected) in truth.enumerated() {
            let error = fit.standardErrors[index]
            #expect(error > 0 && error.isFinite)
            #expect(abs(fit.values[index] - expected) <= 5 * error + 0.01 * expected, "\(index): \(fit.values)")
        }
    }

    @Test func aResistorWithStrayCapacitanceFitsAsItsResistance() throws {
        // 10 kΩ with 10 pF across it, as a dummy cell measured to 200 kHz looks.
        let spectrum = try Self.spectrum("(RC)", [10_000, 10e-12])
        let fit = try CircuitFitter.fit(try EquivalentCircuit("R"), to: spectrum, weighting: .modulus)
        #expect(abs(fit.values[0] - 10_000) < 100, "\(fit.values)")
        #expect(fit.reducedChiSquared < 0.01, "\(fit.reducedChiSquared)")
    }

    @Test func whatCannotBeFittedIsSaid() throws {
        let circuit = try EquivalentCircuit("R(Q(RW))")
        let spectrum = try Self.spectrum("R(Q(RW))", [50, 2e-5, 0.85, 500, 150])
        #expect(throws: CircuitFitError.self) { try CircuitFitter.fit(circuit, to: spectrum, maximumIterations: 2) }
        do {
            _ = try CircuitFitter.fit(circuit, to: spectrum, maximumIterations: 2)
        } catch {
            #expect(error.description.contains("did not converge after 2 iterations"))
        }
        var bad = spectrum
        bad.frequencies[3] = 0
        #expect(throws: CircuitFitError.badData(index: 3)) { try CircuitFitter.fit(circuit, to: bad) }
        let two = ImpedanceSpectrum(frequencies: [1, 2], real: [1, 1], imaginary: [0, 0])
        #expect(throws: CircuitFitError.tooFewPoints(points: 2, parameters: 5)) {
            try CircuitFitter.fit(circuit, to: two)
        }
        #expect(throws: CircuitFitError.self) {
            try CircuitFitter.fit(circuit, to: spectrum, initial: [50, 2e-5, 1.5, 500, 150])
        }
    }
}
