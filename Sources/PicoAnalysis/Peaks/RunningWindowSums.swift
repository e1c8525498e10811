/// The centre part of a Savitzky–Golay smoothing of order up to 3 in constant time per point: with weights
/// `a + b·k²`, a point's value is `a·S₀ + b·S₂`, where `S₀ = Σ y[i+k]` and `S₂ = Σ k²·y[i+k]` over the window;
/// sliding the window one point on updates `S₀`, `S₁ = Σ k·y[i+k]` and `S₂` from the point that leaves and
/// the one that enters. The points are cut into four runs, one per SIMD lane, so that four chains of
/// additions advance at once; each lane's sums are made anew from the window every 128 points, so that
/// rounding cannot build up.
enum RunningWindowSums {
    /// The runs advanced together.
    static let lanes = 4
    /// Points between two sums made anew.
    static let anchorEvery = 128

    /// Fills `out[half ..< y.count - half]`.
    static func smooth(
        _ y: UnsafeBufferPointer<Double>,
        into out: UnsafeMutableBufferPointer<Double>,
        half: Int,
        a: Double,
        b: Double
    ) {
        let first = half
        let count = y.count - 2 * half
        let length = count / lanes
        let starts = SIMD4(0, 1, 2, 3) &* length &+ first
        let h = Double(half)
        let (h1, hh, h1h1) = (h + 1, h * h, (h + 1) * (h + 1))
        var s0 = SIMD4<Double>()
        var s1 = SIMD4<Double>()
        var s2 = SIMD4<Double>()
        // The sums are of each point less a level (the lane's centre point where its sums were last made
        // anew), so that an offset common to the points takes no part in the rounding; the weights sum to 1.
        var level = SIMD4<Double>()
        for step in 0..<length {
            let i = starts &+ step
            if step % anchorEvery == 0 {
                for lane in 0..<lanes {
                    level[lane] = y[i[lane]]
                    (s0[lane], s1[lane], s2[lane]) = exactSums(y, at: i[lane], half: half, less: level[lane])
                }
            }
            let value = level + (a * s0 + b * s2)
            for lane in 0..<lanes { out[i[lane]] = value[lane] }
            // The last lane's last window may end at the last point: there is nothing to slide onto.
            guard step + 1 < length else { break }
            let leaving = SIMD4(y[i[0] - half], y[i[1] - half], y[i[2] - half], y[i[3] - half]) - level
            let entering =
                SIMD4(y[i[0] + half + 1], y[i[1] + half + 1], y[i[2] + half + 1], y[i[3] + half + 1]) - level
            // The window moves on by one: offsets from the new centre are one less.
            let next0 = s0 - leaving + entering
            let t1 = s1 + h * leaving + h1 * entering
            let t2 = s2 - hh * leaving + h1h1 * entering
            s0 = next0
            s1 = t1 - next0
            s2 = t2 - 2 * t1 + next0
        }
        // The last lane's few points past `lanes × length`.
        for i in (first + lanes * length)..<(first + count) {
            let (sum0, _, sum2) = exactSums(y, at: i, half: half, less: y[i])
            out[i] = y[i] + (a * sum0 + b * sum2)
        }
    }

    /// `S₀`, `S₁` and `S₂` of the window around `i`, of the points less `level`.
    static func exactSums(
        _ y: UnsafeBufferPointer<Double>,
        at i: Int,
        half: Int,
        less level: Double
    ) -> (Double, Double, Double) {
        var (s0, s1, s2) = (0.0, 0.0, 0.0)
        for k in -half...half {
            let value = y[i + k] - level
            let offset = Double(k)
            s0 += value
            s1 += offset * value
            s2 += offset * offset * value
        }
        return (s0, s1, s2)
    }
}
