/// A small dense matrix of doubles, row-major: what the smoothing filter and the least-squares fits need
/// (a few rows and columns), solved by Gauss–Jordan elimination with partial pivoting.
struct DenseMatrix: Sendable, Equatable {
    let rows: Int
    let columns: Int
    var elements: [Double]

    init(rows: Int, columns: Int, repeating value: Double = 0) {
        self.rows = rows
        self.columns = columns
        elements = [Double](repeating: value, count: rows * columns)
    }

    subscript(row: Int, column: Int) -> Double {
        get { elements[row * columns + column] }
        set { elements[row * columns + column] = newValue }
    }

    /// The inverse of a square matrix, or nil when it is singular (a pivot below `tolerance` times the
    /// largest element).
    func inverse(tolerance: Double = 1e-14) -> DenseMatrix? {
        precondition(rows == columns, "only a square matrix has an inverse")
        let n = rows
        var a = self
        var result = DenseMatrix(rows: n, columns: n)
        for i in 0..<n { result[i, i] = 1 }
        let scale = elements.map(abs).max() ?? 0
        guard scale > 0, scale.isFinite else { return nil }
        for column in 0..<n {
            var pivot = column
            for row in column + 1..<n where abs(a[row, column]) > abs(a[pivot, column]) { pivot = row }
            guard abs(a[pivot, column]) > tolerance * scale else { return nil }
            if pivot != column {
                for k in 0..<n {
                    a.elements.swapAt(pivot * n + k, column * n + k)
                    result.elements.swapAt(pivot * n + k, column * n + k)
                }
            }
            let divisor = a[column, column]
            for k in 0..<n {
                a[column, k] /= divisor
                result[column, k] /= divisor
            }
            for row in 0..<n where row != column {
                let factor = a[row, column]
                guard factor != 0 else { continue }
                for k in 0..<n {
                    a[row, k] -= factor * a[column, k]
                    result[row, k] -= factor * result[column, k]
                }
            }
        }
        return result
    }
}
