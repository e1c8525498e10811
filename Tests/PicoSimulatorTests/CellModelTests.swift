import Foundation
import Testing

@testable import PicoSimulator

@Suite struct CellModelTests {
    /// Long CVs with uneven steps and intervals against the direct sum Σ aₖ / √(π (t − tₖ)) over every step.
    @Test func diffusionMemoryMatchesTheDirectSum() {
        var memory = DiffusionMemory()
        var steps: [(time: Double, amplitude: Double)] = []
        var time = 0.0
        var worst = 0.0
        var largest = 0.0
        var state: UInt64 = 7
        for index in 0..<6000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let amplitude = sin(Double(index) * 0.003) * 0.02 + Double(state >> 40) * 0x1.0p-24 * 1e-3
            memory.add(amplitude, at: time)
            steps.append((time, amplitude))
            time += index % 3 == 0 ? 0.01 : 0.0005 + Double(index % 7) * 1e-3
            guard index % 50 == 0 else { continue }
            let direct = steps.reduce(0.0) { $0 + $1.amplitude / (Double.pi * (time - $1.time)).squareRoot() }
            let remembered = memory.value(at: time)
            largest = max(largest, abs(direct))
            worst = max(worst, abs(remembered - direct))
        }
        #expect(largest > 0.01)
        #expect(worst <= 1e-5 * largest, "worst \(worst) of \(largest)")
    }

    @Test func cottrellDecayAfterAPotentialStep() {
        let couple = RedoxCouple()
        var cell = CellState(model: .redox(couple))
        cell.apply(couple.formalPotential + 0.5, at: 0)
        // Fully oxidising step: I = nFAC√D / √(πt).
        for time in [0.1, 1.0, 10.0] {
            let expected = couple.cottrellFactor / (Double.pi * time).squareRoot()
            #expect(abs(cell.current(at: time) - expected) <= 1e-3 * expected)
        }
    }

    @Test func randlesLimits() {
        let circuit = RandlesCircuit()
        let low = circuit.impedance(frequency: 1e-3)
        let high = circuit.impedance(frequency: 1e7)
        #expect(abs(low.real - 10_560) < 1 && abs(low.imaginary) < 1)
        #expect(abs(high.real - 560) < 1 && abs(high.imaginary) < 1)
        // The semicircle's top: −Z'' = Rct / 2 at ω = 1 / (Rct Cdl).
        let top = circuit.impedance(frequency: 1 / (2 * Double.pi * 10_000 * 33e-9))
        #expect(abs(-top.imaginary - 5_000) < 1)
    }
}
