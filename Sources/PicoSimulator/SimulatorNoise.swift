/// Deterministic measurement noise: SplitMix64 driving a bounded, roughly Gaussian deviate (the sum of four
/// uniforms, within ±2). The same seed gives the same run.
struct SimulatorNoise {
    private var state: UInt64
    /// Relative noise (fraction of the value) at scale 1.
    let relative: Double
    /// Absolute noise (fraction of the current range's full scale) at scale 1.
    let ofFullScale: Double

    init(seed: UInt64, scale: Double) {
        state = seed
        relative = 2e-4 * scale
        ofFullScale = 2e-5 * scale
    }

    mutating func nextUInt64() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A deviate in [−2, 2], mean 0, standard deviation about 0.58.
    mutating func deviate() -> Double {
        var sum = 0.0
        for _ in 0..<4 { sum += Double(nextUInt64() >> 11) * 0x1.0p-53 }
        return sum - 2
    }

    /// `value` with relative noise plus noise proportional to `fullScale`.
    mutating func perturb(_ value: Double, fullScale: Double) -> Double {
        guard relative != 0 || ofFullScale != 0 else { return value }
        return value * (1 + relative * deviate()) + fullScale * ofFullScale * deviate()
    }
}
