import Synchronization

/// Savitzky–Golay smoothing: each point replaced by the value at it of the least-squares polynomial of
/// `order` through the `window` points around it; the first and last `window / 2` points take the values
/// of the polynomial through the first and last `window` points (what scipy's `savgol_filter` does in its
/// default `interp` mode).
public struct SavitzkyGolay: Sendable, Hashable {
    /// Points in the window: odd, above `order`.
    public let window: Int
    /// The polynomial's order.
    public let order: Int
    /// `projection[i][j]`: the weight of the window's point j in the fitted value at its point i.
    private let projection: [[Double]]
    /// For orders up to 3 the centre row's weights are `a + b·k²` at offset k from the centre, so that a
    /// point's value is `a·S₀ + b·S₂` of running sums (`RunningWindowSums`); nil for higher orders.
    private let quadratic: (a: Double, b: Double)?

    /// A filter of `window` points (odd, more than `order`) and a polynomial of `order` (0 to 6).
    public init?(window: Int, order: Int) {
        guard window % 2 == 1, order >= 0, order <= 6, window > order else { return nil }
        self.window = window
        self.order = order
        // V: window × (order + 1) powers of the positions around the centre; the fit's values are
        // V (VᵀV)⁻¹ Vᵀ y.
        let half = window / 2
        let terms = order + 1
        var gram = DenseMatrix(rows: terms, columns: terms)
        var powers = [Double](repeating: 0, count: window * terms)
        for i in 0..<window {
            var p = 1.0
            for k in 0..<terms {
                powers[i * terms + k] = p
                p *= Double(i - half)
            }
        }
        for r in 0..<terms {
            for c in 0..<terms {
                var sum = 0.0
                for i in 0..<window { sum += powers[i * terms + r] * powers[i * terms + c] }
                gram[r, c] = sum
            }
        }
        guard let inverse = gram.inverse() else { return nil }
        var projection = [[Double]](repeating: [Double](repeating: 0, count: window), count: window)
        var a = [Double](repeating: 0, count: terms)
        for i in 0..<window {
            // a = V[i] (VᵀV)⁻¹, then projection[i][j] = a · V[j].
            for c in 0..<terms {
                var sum = 0.0
                for r in 0..<terms { sum += powers[i * terms + r] * inverse[r, c] }
                a[c] = sum
            }
            for j in 0..<window {
                var sum = 0.0
                for k in 0..<terms { sum += a[k] * powers[j * terms + k] }
                projection[i][j] = sum
            }
        }
        self.projection = projection
        let centre = projection[half][half]
        let curvature = half > 0 ? projection[half][half + 1] - centre : 0
        let fits = (0..<window).allSatisfy { j in
            let k = Double(j - half)
            return abs(projection[half][j] - (centre + curvature * k * k)) <= 1e-12 * abs(centre)
        }
        quadratic = order <= 3 && half > 0 && fits ? (centre, curvature) : nil
    }

    /// Filters of the same window and order are the same filter.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.window == rhs.window && lhs.order == rhs.order }

    /// Hashes the window and the order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(window)
        hasher.combine(order)
    }

    /// `values` smoothed; returned unchanged when there are fewer of them than the window.
    public func smooth(_ values: [Double]) -> [Double] {
        let n = values.count
        guard n >= window else { return values }
        let half = window / 2
        var result = [Double](repeating: 0, count: n)
        values.withUnsafeBufferPointer { y in
            projection[half].withUnsafeBufferPointer { centre in
                result.withUnsafeMutableBufferPointer { out in
                    if let quadratic, n - 2 * half >= RunningWindowSums.lanes * 16 {
                        RunningWindowSums.smooth(y, into: out, half: half, a: quadratic.a, b: quadratic.b)
                        return
                    }
                    // Four points at a time: four independent sums instead of one chain of additions.
                    var i = half
                    while i + 3 < n - half {
                        var (s0, s1, s2, s3) = (0.0, 0.0, 0.0, 0.0)
                        let start = i - half
                        for j in 0..<window {
                            let weight = centre[j]
                            s0 += weight * y[start + j]
                            s1 += weight * y[start + j + 1]
                            s2 += weight * y[start + j + 2]
                            s3 += weight * y[start + j + 3]
                        }
                        (out[i], out[i + 1], out[i + 2], out[i + 3]) = (s0, s1, s2, s3)
                        i += 4
                    }
                    while i < n - half {
                        var sum = 0.0
                        for j in 0..<window { sum += centre[j] * y[i - half + j] }
                        out[i] = sum
                        i += 1
                    }
                }
            }
            for i in 0..<half {
                var left = 0.0
                var right = 0.0
                let row = projection[i]
                let mirrored = projection[window - 1 - i]
                for j in 0..<window {
                    left += row[j] * y[j]
                    right += mirrored[j] * y[n - window + j]
                }
                result[i] = left
                result[n - 1 - i] = right
            }
        }
        return result
    }

    /// The filter of `window` and `order`, made once and kept (at most a few dozen are ever asked for).
    public static func cached(window: Int, order: Int) -> SavitzkyGolay? {
        let key = window << 8 | order
        if let filter = cache.withLock({ $0[key] }) { return filter }
        guard let filter = SavitzkyGolay(window: window, order: order) else { return nil }
        cache.withLock { $0[key] = filter }
        return filter
    }

    private static let cache = Mutex<[Int: SavitzkyGolay]>([:])

    /// The window for `count` points when none is given: about a twentieth of them, odd, from 5 to 31
    /// points, and never more than there are.
    public static func automaticWindow(for count: Int) -> Int {
        var window = max(5, min(31, count / 20))
        if window % 2 == 0 { window += 1 }
        while window > count, window > 1 { window -= 2 }
        return window
    }
}
