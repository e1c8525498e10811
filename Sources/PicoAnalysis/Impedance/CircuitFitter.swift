import ComplexModule
import RealModule

/// Fits an equivalent circuit to a spectrum by Levenberg–Marquardt: every parameter kept positive (fitted
/// as its logarithm; a CPE's n kept between 0 and 1 through a logistic), the real and imaginary residuals
/// weighted as asked, and the standard errors from the covariance at the minimum.
public enum CircuitFitter {
    /// The fit of `circuit` to `spectrum` from `initial` values (guessed from the data when nil).
    public static func fit(
        _ circuit: EquivalentCircuit,
        to spectrum: ImpedanceSpectrum,
        initial: [Double]? = nil,
        weighting: FitWeighting = .modulus,
        maximumIterations: Int = 500
    ) throws(CircuitFitError) -> CircuitFit {
        let count = circuit.parameters.count
        guard 2 * spectrum.frequencies.count > count else {
            throw .tooFewPoints(points: spectrum.frequencies.count, parameters: count)
        }
        for (index, (f, z)) in zip(spectrum.frequencies, spectrum.impedances).enumerated()
        where !(f > 0 && f.isFinite && z.real.isFinite && z.imaginary.isFinite) {
            throw .badData(index: index)
        }
        let start = initial ?? InitialGuess.values(for: circuit, spectrum)
        guard start.count == count else {
            throw .badInitialValues("\(start.count) values for \(count) parameters")
        }
        for (parameter, value) in zip(circuit.parameters, start) {
            let isExponent = parameter.name.hasSuffix(".n")
            guard value > 0, value.isFinite, !isExponent || value <= 1 else {
                throw .badInitialValues("\(parameter.name) = \(value) is out of bounds")
            }
        }
        let problem = Problem(circuit: circuit, spectrum: spectrum, weighting: weighting)
        var u = problem.transform(start)
        var r = problem.residuals(u)
        var cost = Problem.sumOfSquares(r)
        guard cost.isFinite else {
            throw .didNotConverge(iterations: 0, reason: "the model is not finite at the start")
        }
        var lambda = 1e-3
        var iterations = 0
        var converged = false
        while iterations < maximumIterations {
            iterations += 1
            let jacobian = problem.jacobian(u)
            let (normal, gradient) = Problem.normalEquations(jacobian, r, count: count)
            if gradient.map(abs).max() ?? 0 <= 1e-15 * max(cost, 1e-300) {
                converged = true
                break
            }
            var accepted = false
            while lambda < 1e16 {
                var damped = normal
                for k in 0..<count { damped[k, k] += lambda * max(normal[k, k], 1e-300) }
                guard let inverse = damped.inverse(tolerance: 1e-300) else {
                    lambda *= 10
                    continue
                }
                var step = [Double](repeating: 0, count: count)
                for i in 0..<count {
                    for j in 0..<count { step[i] -= inverse[i, j] * gradient[j] }
                }
                let trial = zip(u, step).map { $0 + $1 }
                let trialResiduals = problem.residuals(trial)
                let trialCost = Problem.sumOfSquares(trialResiduals)
                if trialCost.isFinite, trialCost < cost {
                    let decrease = (cost - trialCost) / max(cost, 1e-300)
                    let small = zip(step, u).allSatisfy { abs($0) <= 1e-12 * (abs($1) + 1e-12) }
                    u = trial
                    r = trialResiduals
                    cost = trialCost
                    lambda = max(lambda / 10, 1e-12)
                    accepted = true
                    if decrease < 1e-14 || small { converged = true }
                    break
                }
                lambda *= 10
            }
            if converged { break }
            if !accepted {
                // No step lowers the cost: at the minimum to working precision.
                converged = true
                break
            }
        }
        guard converged else {
            throw .didNotConverge(iterations: iterations, reason: "the residuals were still falling")
        }
        let values = problem.values(u)
        let degrees = max(1, r.count - count)
        return CircuitFit(
            circuit: circuit,
            weighting: weighting,
            values: values,
            standardErrors: problem.standardErrors(u, values: values, variance: cost / Double(degrees)),
            chiSquared: cost,
            reducedChiSquared: cost / Double(degrees),
            residuals: stride(from: 0, to: r.count, by: 2).map { Complex(r[$0], r[$0 + 1]) },
            iterations: iterations
        )
    }

    /// The least-squares problem in the fitted (transformed) parameters.
    struct Problem {
        let circuit: EquivalentCircuit
        let spectrum: ImpedanceSpectrum
        /// Per point, the real and imaginary weights.
        let weights: [(Double, Double)]
        /// Which parameters are a CPE's exponent (logistic) rather than positive (logarithm).
        let exponent: [Bool]

        init(circuit: EquivalentCircuit, spectrum: ImpedanceSpectrum, weighting: FitWeighting) {
            self.circuit = circuit
            self.spectrum = spectrum
            exponent = circuit.parameters.map { $0.name.hasSuffix(".n") }
            weights = spectrum.impedances.map { z in
                let modulus = max(z.length, 1e-300)
                switch weighting {
                case .unit: return (1, 1)
                case .modulus: return (modulus, modulus)
                case .proportional:
                    return (abs(z.real) > 0 ? abs(z.real) : modulus, abs(z.imaginary) > 0 ? abs(z.imaginary) : modulus)
                }
            }
        }

        func transform(_ values: [Double]) -> [Double] {
            zip(values, exponent).map { value, isExponent in
                isExponent ? Double.log(min(value, 1 - 1e-9) / (1 - min(value, 1 - 1e-9))) : Double.log(value)
            }
        }

        func values(_ u: [Double]) -> [Double] {
            zip(u, exponent).map { value, isExponent in isExponent ? 1 / (1 + Double.exp(-value)) : Double.exp(value) }
        }

        /// d value / d u for each parameter.
        func derivatives(_ values: [Double]) -> [Double] {
            zip(values, exponent).map { value, isExponent in isExponent ? value * (1 - value) : value }
        }

        func residuals(_ u: [Double]) -> [Double] {
            let parameters = values(u)
            var result = [Double](repeating: 0, count: 2 * spectrum.frequencies.count)
            for i in spectrum.frequencies.indices {
                let model = circuit.impedance(at: spectrum.frequencies[i], parameters)
                let data = spectrum.impedances[i]
                result[2 * i] = (model.real - data.real) / weights[i].0
                result[2 * i + 1] = (model.imaginary - data.imaginary) / weights[i].1
            }
            return result
        }

        /// ∂r/∂u by central differences: one column per parameter.
        func jacobian(_ u: [Double]) -> [[Double]] {
            u.indices.map { k in
                let h = 1e-6 * max(1, abs(u[k]))
                var up = u
                var down = u
                up[k] += h
                down[k] -= h
                return zip(residuals(up), residuals(down)).map { ($0 - $1) / (2 * h) }
            }
        }

        static func normalEquations(_ columns: [[Double]], _ r: [Double], count: Int) -> (DenseMatrix, [Double]) {
            var normal = DenseMatrix(rows: count, columns: count)
            var gradient = [Double](repeating: 0, count: count)
            for a in 0..<count {
                for b in a..<count {
                    var sum = 0.0
                    for i in r.indices { sum += columns[a][i] * columns[b][i] }
                    normal[a, b] = sum
                    normal[b, a] = sum
                }
                var g = 0.0
                for i in r.indices { g += columns[a][i] * r[i] }
                gradient[a] = g
            }
            return (normal, gradient)
        }

        static func sumOfSquares(_ r: [Double]) -> Double { r.reduce(0) { $0 + $1 * $1 } }

        /// √diag(σ² (JᵀJ)⁻¹) with J taken against the parameters themselves.
        func standardErrors(_ u: [Double], values: [Double], variance: Double) -> [Double] {
            let slopes = derivatives(values)
            let columns = zip(jacobian(u), slopes).map { column, slope in column.map { $0 / slope } }
            let (normal, _) = Self.normalEquations(columns, residuals(u), count: u.count)
            guard let inverse = normal.inverse(tolerance: 1e-300) else {
                return [Double](repeating: .nan, count: u.count)
            }
            return u.indices.map { k in
                let v = inverse[k, k] * variance
                return v >= 0 ? v.squareRoot() : .nan
            }
        }
    }
}
