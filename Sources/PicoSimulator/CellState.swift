/// The cell during one script run: the model plus what it remembers (the redox couple's step history).
struct CellState {
    /// Redox steps older than this many are forgotten (their 1/√t tails are small); bounds the work per sample.
    static let historyLimit = 4096

    let model: CellModel
    private(set) var potential = 0.0
    private var stepTimes: [Double] = []
    private var stepSizes: [Double] = []
    private var fraction = 0.0

    init(model: CellModel) {
        self.model = model
        stepTimes.reserveCapacity(Self.historyLimit * 2)
        stepSizes.reserveCapacity(Self.historyLimit * 2)
    }

    /// The cell is switched off: no current, and the diffusion layer relaxes back to the bulk.
    mutating func disconnect() {
        stepTimes.removeAll(keepingCapacity: true)
        stepSizes.removeAll(keepingCapacity: true)
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
        if stepTimes.count >= Self.historyLimit * 2 {
            stepTimes.removeFirst(Self.historyLimit)
            stepSizes.removeFirst(Self.historyLimit)
        }
        stepTimes.append(time)
        stepSizes.append(jump)
    }

    /// The current (A) at `time` (s), for the potential last applied.
    func current(at time: Double) -> Double {
        switch model {
        case .resistor(let ohms): return potential / ohms
        case .randles(let circuit):
            return potential / (circuit.seriesResistance + circuit.chargeTransferResistance)
        case .redox(let couple):
            var sum = 0.0
            for index in stepTimes.indices {
                let elapsed = max(time - stepTimes[index], 1e-6)
                sum += stepSizes[index] / (Double.pi * elapsed).squareRoot()
            }
            return couple.cottrellFactor * sum
        }
    }
}
