import Foundation

/// The memory of planar semi-infinite diffusion: F(t) = Σₖ aₖ / √(π (t − tₖ)) over every step aₖ applied at
/// tₖ, in constant time and memory per step and per sample.
///
/// The kernel is written as a sum of exponentials: 1/√(πτ) = (1/π) ∫ e^{u/2} exp(−e^u τ) du, approximated by
/// the trapezoidal rule on u ∈ [−32, 18] with step 0.6 (84 nodes). The integrand is analytic in the strip
/// |Im u| < π/2, so the rule converges geometrically (error ≈ e^{−π²/h} ≈ 1e-7 relative); the limits cover ages
/// from about 1 µs to 10⁶ s. Each node keeps one decaying state, so a new step and a sample both cost one
/// multiply-add per node (the decay factors are cached for a repeated interval).
struct DiffusionMemory {
    static let step = 0.6
    static let nodes: [(rate: Double, weight: Double)] = stride(from: -32.0, through: 18.0, by: step).map {
        (exp($0), exp($0 / 2) * step / Double.pi)
    }

    private var states = [Double](repeating: 0, count: nodes.count)
    /// The time the states refer to.
    private var reference = 0.0
    private var cachedInterval = Double.nan
    private var cachedDecay = [Double](repeating: 1, count: nodes.count)

    mutating func reset() {
        for index in states.indices { states[index] = 0 }
        reference = 0
    }

    /// Adds a step of size `amplitude` at `time` (not before the previous one).
    mutating func add(_ amplitude: Double, at time: Double) {
        advance(to: time)
        for index in states.indices { states[index] += amplitude }
    }

    /// F at `time` (not before the last step).
    mutating func value(at time: Double) -> Double {
        let elapsed = max(time - reference, 1e-6)
        decay(for: elapsed)
        var sum = 0.0
        for index in states.indices { sum += Self.nodes[index].weight * states[index] * cachedDecay[index] }
        return sum
    }

    private mutating func advance(to time: Double) {
        let elapsed = time - reference
        guard elapsed > 0 else { return }
        decay(for: elapsed)
        for index in states.indices { states[index] *= cachedDecay[index] }
        reference = time
    }

    private mutating func decay(for interval: Double) {
        guard interval != cachedInterval else { return }
        cachedInterval = interval
        for index in cachedDecay.indices { cachedDecay[index] = exp(-Self.nodes[index].rate * interval) }
    }
}
