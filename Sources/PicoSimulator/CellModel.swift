import Foundation
import MethodSCRIPT

/// The electrochemical cell behind the simulated working electrode.
///
/// - `resistor`: an ohmic dummy cell, I = E / R (the 10 kΩ dummy cell of the published LSV example).
/// - `randles`: Rs in series with (Rct ∥ Cdl); its DC current is E / (Rs + Rct).
/// - `redox`: a reversible one-electron couple under planar semi-infinite diffusion (see `RedoxCouple`).
public enum CellModel: Sendable, Hashable {
    case resistor(ohms: Double)
    case randles(RandlesCircuit)
    case redox(RedoxCouple)

    /// The 10 kΩ dummy cell.
    public static let dummyCell = CellModel.resistor(ohms: 10_000)

    /// The names `--sim-cell` and a rig's `sim_cell` take: `resistor` (10 kΩ), `resistor:OHMS`, `randles`,
    /// `redox`; nil for another word. (`auto`, the simulator's own choice per script, is no model.)
    public init?(name: String) {
        switch name.lowercased() {
        case "resistor": self = .dummyCell
        case "randles": self = .randles(RandlesCircuit())
        case "redox": self = .redox(RedoxCouple())
        case let text where text.hasPrefix("resistor:"):
            guard let ohms = Double(text.dropFirst("resistor:".count)), ohms > 0, ohms.isFinite else { return nil }
            self = .resistor(ohms: ohms)
        default: return nil
        }
    }

    /// What `init(name:)` takes, for messages.
    public static let names = "auto, resistor, resistor:OHMS, randles, redox"

    /// The model the simulator uses for a script when the configuration says `automatic`: EIS gets a Randles
    /// circuit, voltammetry with peaks (CV, SWV, DPV) a redox couple, LSV and CA the 10 kΩ resistor.
    public static func automatic(for techniques: [MeasurementLoopKind]) -> CellModel {
        if techniques.contains(.eis) { return .randles(RandlesCircuit()) }
        if techniques.contains(where: { [.cv, .swv, .dpv, .npv].contains($0) }) { return .redox(RedoxCouple()) }
        return .dummyCell
    }

    /// The potential the cell rests at with no current (OCP): 0 V for the resistor and the circuit; for the
    /// couple, where only one part in a hundred is oxidised (2.3 RT/F · 2 below E0).
    public var restPotential: Double {
        switch self {
        case .resistor, .randles: 0
        case .redox(let couple): couple.formalPotential - 2 * log(10) / couple.inverseThermalVoltage
        }
    }

    /// The DC resistance a constant current meets (CP): R, Rs + Rct, or the couple's interface's.
    public var resistance: Double {
        switch self {
        case .resistor(let ohms): ohms
        case .randles(let circuit): circuit.seriesResistance + circuit.chargeTransferResistance
        case .redox(let couple): couple.interface.seriesResistance + couple.interface.chargeTransferResistance
        }
    }

    /// Complex impedance at `frequency` (Hz): real part and imaginary part (negative for capacitive).
    public func impedance(frequency: Double) -> (real: Double, imaginary: Double) {
        switch self {
        case .resistor(let ohms): (ohms, 0)
        case .randles(let circuit): circuit.impedance(frequency: frequency)
        case .redox(let couple): couple.interface.impedance(frequency: frequency)
        }
    }
}

/// Rs + (Rct ∥ Cdl). Defaults: 560 Ω, 10 kΩ, 33 nF, whose semicircle peaks near 480 Hz, inside the usual
/// 100 Hz – 100 kHz sweep.
public struct RandlesCircuit: Sendable, Hashable {
    public var seriesResistance: Double
    public var chargeTransferResistance: Double
    public var doubleLayerCapacitance: Double

    public init(
        seriesResistance: Double = 560,
        chargeTransferResistance: Double = 10_000,
        doubleLayerCapacitance: Double = 33e-9
    ) {
        self.seriesResistance = seriesResistance
        self.chargeTransferResistance = chargeTransferResistance
        self.doubleLayerCapacitance = doubleLayerCapacitance
    }

    /// Z = Rs + Rct / (1 + jωRctCdl).
    public func impedance(frequency: Double) -> (real: Double, imaginary: Double) {
        let x = 2 * Double.pi * frequency * chargeTransferResistance * doubleLayerCapacitance
        let denominator = 1 + x * x
        return (
            seriesResistance + chargeTransferResistance / denominator, -chargeTransferResistance * x / denominator
        )
    }
}

/// A reversible (Nernstian) one-electron couple, only the reduced form in the bulk, planar semi-infinite
/// diffusion with equal diffusion coefficients.
///
/// At every potential step the surface fraction of oxidised species jumps to
/// θ(E) = 1 / (1 + exp(−F(E − E0)/RT)); each jump Δθ at time tₖ adds a Cottrell transient, so
/// I(t) = nFAC√D · Σ Δθₖ / √(π (t − tₖ)) (kept in constant memory by `DiffusionMemory`). The Pico's sweeps
/// are staircases, so this is exact for LSV, CV, SWV
/// and DPV and gives the textbook shapes: CV peaks ±29 mV around E0 (ΔEp ≈ 59 mV), ip ∝ √v, SWV/DPV peaks at
/// E0. Oxidation current is positive. Defaults: E0 = 0.1 V, 1 mM, D = 7.2e-6 cm²/s, A = 0.0707 cm² (3 mm disk),
/// 25 °C: about 16 µA peak at 100 mV/s.
public struct RedoxCouple: Sendable, Hashable {
    public var formalPotential: Double
    /// Bulk concentration, mol/cm³.
    public var concentration: Double
    /// cm²/s.
    public var diffusionCoefficient: Double
    /// cm².
    public var area: Double
    public var temperature: Double
    /// The interface seen by EIS.
    public var interface: RandlesCircuit

    public init(
        formalPotential: Double = 0.1,
        concentration: Double = 1e-6,
        diffusionCoefficient: Double = 7.2e-6,
        area: Double = 0.0707,
        temperature: Double = 298.15,
        interface: RandlesCircuit = RandlesCircuit(
            seriesResistance: 100,
            chargeTransferResistance: 2_000,
            doubleLayerCapacitance: 1e-6
        )
    ) {
        self.formalPotential = formalPotential
        self.concentration = concentration
        self.diffusionCoefficient = diffusionCoefficient
        self.area = area
        self.temperature = temperature
        self.interface = interface
    }

    /// F/RT in 1/V.
    var inverseThermalVoltage: Double { 96_485.332 / (8.314_462 * temperature) }
    /// nFAC√D in A·s^½.
    var cottrellFactor: Double { 96_485.332 * area * concentration * diffusionCoefficient.squareRoot() }

    func oxidisedFraction(at potential: Double) -> Double {
        1 / (1 + exp(-inverseThermalVoltage * (potential - formalPotential)))
    }
}
