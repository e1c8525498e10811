import ComplexModule
import RealModule

/// An element of an equivalent circuit, by its letter in Boukamp's circuit description code.
public enum CircuitElement: Character, Sendable, Hashable, CaseIterable {
    /// A resistor: Z = R (Ω).
    case resistor = "R"
    /// A capacitor: Z = 1 / (jωC) (F).
    case capacitor = "C"
    /// An inductor: Z = jωL (H).
    case inductor = "L"
    /// A constant phase element: Z = 1 / (Y₀ (jω)ⁿ), with Y₀ (S·sⁿ) and 0 < n ≤ 1.
    case constantPhase = "Q"
    /// A semi-infinite Warburg element: Z = σ (1 − j) / √ω (Ω·s^-½).
    case warburg = "W"

    /// The units of its parameters, in order.
    public var units: [String] {
        switch self {
        case .resistor: ["Ω"]
        case .capacitor: ["F"]
        case .inductor: ["H"]
        case .constantPhase: ["S·s^n", ""]
        case .warburg: ["Ω·s^-½"]
        }
    }

    /// Its impedance at angular frequency `omega` with its first parameter `p` and (a CPE's exponent) `n`.
    func impedance(_ p: Double, _ n: Double, omega: Double) -> Complex<Double> {
        switch self {
        case .resistor:
            return Complex(p, 0)
        case .capacitor:
            return Complex(0, -1 / (omega * p))
        case .inductor:
            return Complex(0, omega * p)
        case .constantPhase:
            let magnitude = p * Double.pow(omega, n)
            let angle = n * Double.pi / 2
            // 1 / (|Y| e^{jθ}) = e^{-jθ} / |Y|.
            return Complex(Double.cos(angle) / magnitude, -Double.sin(angle) / magnitude)
        case .warburg:
            let scale = p / omega.squareRoot()
            return Complex(scale, -scale)
        }
    }
}
