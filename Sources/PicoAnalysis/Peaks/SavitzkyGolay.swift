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

    /// A filter of `window` points (odd, more than `order`) and a polynomial of `order` (0 to 6).
    public init?(window: Int, order: Int) {
        guard window % 2 == 1, order >= 0, order <= 6, window > order else { return nil }
        self.window = window
        self.order = order
        // V: window × (order + 1) powers of the positions around the centre; the fit's values are
        // V (VᵀV)⁻¹ Vᵀ y.
        let half = window / 2
        var gram = DenseMatrix(rows: order + 1, columns: order + 1)
        var powers = [[Double]](repeating: [], count: window)
        for i in 0..<window {
            let t = Double(i - half)
            var p = 1.0
            for _ in 0...order {
                powers[i].append(p)
                p *= t
            }
        }
        for r in 0...order {
            for c in 0...order {
                gram[r, c] = (0..<window).reduce(0) { $0 + powers[$1][r] * powers[$1][c] }
            }
        }
        guard let inverse = gram.inverse() else { return nil }
        var projection = [[Double]](repeating: [Double](repeating: 0, count: window), count: window)
        for i in 0..<window {
            // a_i = V[i] (VᵀV)⁻¹, then projection[i][j] = a_i · V[j].
            var a = [Double](repeating: 0, count: order + 1)
            for c in 0...order {
                for r in 0...order { a[c] += powers[i][r] * inverse[r, c] }
            }
            for j in 0..<window {
                projection[i][j] = (0...order).reduce(0) { $0 + a[$1] * powers[j][$1] }
            }
        }
        self.projection = projection
    }

    /// `values` smoothed; returned unchanged when there are fewer of them than the window.
    public func smooth(_ values: [Double]) -> [Double] {
        let n = values.count
        guard n >= window else { return values }
        let half = window / 2
        var result = [Double](repeating: 0, count: n)
        values.withUnsafeBufferPointer { y in
            let centre = projection[half]
            for i in half..<(n - half) {
                var sum = 0.0
                for j in 0..<window { sum += centre[j] * y[i - half + j] }
                result[i] = sum
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

    /// The window for `count` points when none is given: about a twentieth of them, odd, from 5 to 31
    /// points, and never more than there are.
    public static func automaticWindow(for count: Int) -> Int {
        var window = max(5, min(31, count / 20))
        if window % 2 == 0 { window += 1 }
        while window > count, window > 1 { window -= 2 }
        return window
    }
}
