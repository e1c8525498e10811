import ComplexModule
import PicoAnalysis
import Testing

/// Boukamp's circuit description codes: parsed into series and parallel groups with named parameters,
/// malformed ones refused at their character, and impedances at the limits a circuit must reach.
@Suite struct EquivalentCircuitTests {
    @Test func parametersAreNamedInOrder() throws {
        #expect(try EquivalentCircuit("R(RC)").parameters.map(\.name) == ["R1", "R2", "C1"])
        #expect(try EquivalentCircuit("R(Q(RW))").parameters.map(\.name) == ["R1", "Q1", "Q1.n", "R2", "W1"])
        #expect(
            try EquivalentCircuit("LR(RC)(RQ)").parameters.map(\.name) == ["L1", "R1", "R2", "C1", "R3", "Q1", "Q1.n"]
        )
    }

    @Test(arguments: [
        ("R(RC", 5, "not closed"), ("R)C", 2, "without its ("), ("R()", 3, "an empty ()"), ("RX", 2, "'X' is not"),
        ("", 1, "no element"),
    ])
    func malformedCodesAreLocated(code: String, position: Int, words: String) {
        #expect {
            try EquivalentCircuit(code)
        } throws: { error in
            guard let error = error as? EquivalentCircuit.ParseError else { return false }
            return error.position == position && error.message.contains(words)
        }
    }

    @Test func impedancesReachTheirLimits() throws {
        let randles = try EquivalentCircuit("R(RC)")
        let values = [100.0, 1_000, 1e-6]
        // High frequency: the capacitor shorts the parallel pair; low: it is open.
        #expect(abs(randles.impedance(at: 1e9, values).real - 100) < 1e-3)
        #expect(abs(randles.impedance(at: 1e-6, values).real - 1_100) < 1e-3)
        // At ω = 1/(RC) the parallel pair gives R/2 − jR/2.
        let corner = 1 / (2 * Double.pi * 1_000 * 1e-6)
        let z = randles.impedance(at: corner, values)
        #expect(abs(z.real - 600) < 1e-9 && abs(z.imaginary + 500) < 1e-9, "\(z)")
        // A CPE of n = 1 is a capacitor; a Warburg element's phase is -45°.
        let cpe = try EquivalentCircuit("Q").impedance(at: 10, [1e-6, 1])
        let capacitor = try EquivalentCircuit("C").impedance(at: 10, [1e-6])
        #expect((cpe - capacitor).length < 1e-9 * capacitor.length)
        let warburg = try EquivalentCircuit("W").impedance(at: 3, [50])
        #expect(abs(warburg.real + warburg.imaginary) < 1e-12 && warburg.real > 0)
    }
}
