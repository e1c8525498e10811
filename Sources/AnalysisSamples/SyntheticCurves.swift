import Foundation

/// Voltammograms and spectra whose peaks and parameters are known, for the analysis tests and Bench:
/// Gaussian peaks on a sloping line, with seeded noise when asked, and log-spaced frequencies.
public enum SyntheticCurves {
    /// A deterministic generator (SplitMix64), so a noisy curve is the same in every run.
    public struct Seeded: RandomNumberGenerator {
        /// The generator's state.
        public var state: UInt64

        /// A generator starting from `state`.
        public init(state: UInt64) { self.state = state }

        /// The next 64 random bits.
        public mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// One Gaussian peak: centre (V), height (A), standard deviation (V).
    public struct Bump: Sendable {
        /// Where it peaks (V).
        public var centre: Double
        /// Its height (A), negative for a dip.
        public var height: Double
        /// Its standard deviation (V).
        public var sigma: Double

        /// A peak of `height` at `centre`, `sigma` wide.
        public init(centre: Double, height: Double, sigma: Double) {
            self.centre = centre
            self.height = height
            self.sigma = sigma
        }
    }

    /// A sweep from `from` to `to` in `step`, with `bumps` on the line `offset + slope · E`, and Gaussian
    /// noise of `noise` A (Box–Muller over a seeded generator).
    /// Three overlapping-free peaks of different heights and widths from −0.8 to 0.8 V in `step`s, with
    /// noise: the tests' and Bench's hardest sweep.
    public static func threePeaks(step: Double) -> (potentials: [Double], currents: [Double]) {
        sweep(
            from: -0.8,
            to: 0.8,
            step: step,
            bumps: [
                .init(centre: -0.4, height: 5e-7, sigma: 0.04), .init(centre: 0.05, height: 2e-6, sigma: 0.06),
                .init(centre: 0.3, height: 8e-7, sigma: 0.03),
            ],
            noise: 3e-8,
            seed: 3
        )
    }

    public static func sweep(
        from: Double,
        to: Double,
        step: Double,
        bumps: [Bump],
        offset: Double = 1e-7,
        slope: Double = 2e-7,
        noise: Double = 0,
        seed: UInt64 = 7
    ) -> (potentials: [Double], currents: [Double]) {
        var generator = Seeded(state: seed)
        let count = Int((abs(to - from) / step).rounded()) + 1
        let direction: Double = to >= from ? 1 : -1
        var potentials: [Double] = []
        var currents: [Double] = []
        for i in 0..<count {
            let e = from + direction * Double(i) * step
            var current = offset + slope * e
            for bump in bumps {
                current += bump.height * exp(-pow(e - bump.centre, 2) / (2 * bump.sigma * bump.sigma))
            }
            if noise > 0 {
                let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
                let u2 = Double.random(in: 0..<1, using: &generator)
                current += noise * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            }
            potentials.append(e)
            currents.append(current)
        }
        return (potentials, currents)
    }

    /// Frequencies from `high` to `low`, `count` of them evenly spaced in log.
    public static func frequencies(high: Double = 100_000, low: Double = 0.1, count: Int = 51) -> [Double] {
        (0..<count).map { high * pow(low / high, Double($0) / Double(count - 1)) }
    }
}
