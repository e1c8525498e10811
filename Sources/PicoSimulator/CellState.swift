/// The cell during one script run: the model plus what it remembers (the redox couple's diffusion layer).
struct CellState {
    let model: CellModel
    private(set) var potential = 0.0
    private var memory = DiffusionMemory()
    private var fraction = 0.0

    init(model: CellModel) {
        self.model = model
    }

    /// The cell is switched off: no current, and the diffusion layer relaxes back to the bulk.
    mutating func disconnect() {
        memory.reset()
        fraction = 0
    }

    /// Applies `newPotential` from `time` (s) on.
    mutating func apply(_ newPotential: Double, at time: Double) {
        potential = newPotential
        guard case .redox(let couple) = model else { return }
        let target = couple.oxidisedFraction(at: newPotential)
        let jump = target - fraction
        guard jump != 0 else { return }
        fraction = target
        memory.add(jump, at: time)
    }

    /// The current (A) at `time` (s), for the potential last applied.
    mutating func current(at time: Double) -> Double {
        switch model {
        case .resistor(let ohms): return potential / ohms
        case .randles(let circuit):
            return potential / (circuit.seriesResistance + circuit.chargeTransferResistance)
        case .redox(let couple):
            return couple.cottrellFactor * memory.value(at: time)
        }
    }
}
