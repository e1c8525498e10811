/// Maxima of a sampled curve found the way scipy's `signal.find_peaks` finds them, so that the same
/// settings give the same peaks: local maxima (the middle of a flat top), each one's prominence with its
/// left and right bases, and its width at a fraction of its prominence, interpolated between samples.
public enum PeakFinder {
    /// One maximum, in sample indices.
    public struct Candidate: Sendable, Hashable {
        /// The sample of the maximum (the middle one of a flat top).
        public var index: Int
        /// How far the maximum rises above the higher of the lowest points on each side before a higher
        /// point (or the curve's end).
        public var prominence: Double
        /// Where the lowest point on the left is.
        public var leftBase: Int
        /// Where the lowest point on the right is.
        public var rightBase: Int
        /// The width, in samples, at `relativeHeight` of the prominence below the maximum.
        public var width: Double
        /// Where that width starts and ends, in fractional samples.
        public var leftEdge: Double
        /// Where that width ends.
        public var rightEdge: Double
    }

    /// Every maximum of `y` with at least `minimumProminence` and `minimumWidth` samples of width at
    /// `relativeHeight` (0.5: half the prominence), in order.
    public static func peaks(
        _ y: [Double],
        minimumProminence: Double = 0,
        minimumWidth: Double = 0,
        relativeHeight: Double = 0.5
    ) -> [Candidate] {
        var found: [Candidate] = []
        let maxima = localMaxima(y)
        guard !maxima.isEmpty else { return found }
        let (leftBases, rightBases) = bases(y)
        for index in maxima {
            let (left, right) = (leftBases[index], rightBases[index])
            let prominence = y[index] - max(y[left], y[right])
            guard prominence >= minimumProminence else { continue }
            let edges = width(of: index, in: y, prominence: prominence, bases: (left, right), relative: relativeHeight)
            let width = edges.right - edges.left
            guard width >= minimumWidth else { continue }
            found.append(
                Candidate(
                    index: index,
                    prominence: prominence,
                    leftBase: left,
                    rightBase: right,
                    width: width,
                    leftEdge: edges.left,
                    rightEdge: edges.right
                )
            )
        }
        return found
    }

    /// Indices of the samples higher than the one before and the first lower one after (a flat top
    /// gives its middle sample, rounded down); the ends are never maxima.
    public static func localMaxima(_ y: [Double]) -> [Int] {
        var maxima: [Int] = []
        guard y.count >= 3 else { return maxima }
        var i = 1
        let last = y.count - 1
        while i < last {
            if y[i - 1] < y[i] {
                var ahead = i + 1
                while ahead < last, y[ahead] == y[i] { ahead += 1 }
                if y[ahead] < y[i] {
                    maxima.append((i + ahead - 1) / 2)
                    i = ahead
                }
            }
            i += 1
        }
        return maxima
    }

    /// For every sample that is not inside a strictly rising or falling run (the ends, extrema and flat
    /// stretches: the only samples a base can be), the bases `prominence(of:in:)` would find for it; other
    /// entries are 0. One pass each way over those samples: a stack of the samples still higher than all
    /// after them, each with the lowest sample of the stretch it stands for (the rightmost of equals on the
    /// left, the leftmost on the right, as the scans keep them).
    static func bases(_ y: [Double]) -> (left: [Int], right: [Int]) {
        let n = y.count
        var left = [Int](repeating: 0, count: n)
        var right = [Int](repeating: 0, count: n)
        guard n > 0 else { return (left, right) }
        // The stack: its samples' indices and, for each, the lowest sample of its stretch.
        let points = UnsafeMutablePointer<Int>.allocate(capacity: n)
        let indices = UnsafeMutablePointer<Int>.allocate(capacity: n)
        let lowests = UnsafeMutablePointer<Int>.allocate(capacity: n)
        defer {
            points.deallocate()
            indices.deallocate()
            lowests.deallocate()
        }
        y.withUnsafeBufferPointer { y in
            var pointCount = 0
            for i in 0..<n {
                if i > 0, i < n - 1 {
                    let (before, here, after) = (y[i - 1], y[i], y[i + 1])
                    if (before < here && here < after) || (before > here && here > after) { continue }
                }
                points[pointCount] = i
                pointCount += 1
            }
            // One pass over the points, forward or backward, each given the lowest sample of its stretch.
            func pass(forward: Bool, into result: UnsafeMutableBufferPointer<Int>) {
                var count = 0
                for step in 0..<pointCount {
                    let i = points[forward ? step : pointCount - 1 - step]
                    var lowest = i
                    let value = y[i]
                    while count > 0, y[indices[count - 1]] <= value {
                        if y[lowests[count - 1]] < y[lowest] { lowest = lowests[count - 1] }
                        count -= 1
                    }
                    result[i] = lowest
                    indices[count] = i
                    lowests[count] = lowest
                    count += 1
                }
            }
            left.withUnsafeMutableBufferPointer { pass(forward: true, into: $0) }
            right.withUnsafeMutableBufferPointer { pass(forward: false, into: $0) }
        }
        return (left, right)
    }

    /// The prominence of the maximum at `peak` and its bases: on each side the lowest sample before one
    /// higher than the maximum (or the end).
    public static func prominence(of peak: Int, in y: [Double]) -> (prominence: Double, left: Int, right: Int) {
        let top = y[peak]
        var left = peak
        var leftMinimum = top
        var i = peak
        while i >= 0, y[i] <= top {
            if y[i] < leftMinimum {
                leftMinimum = y[i]
                left = i
            }
            i -= 1
        }
        var right = peak
        var rightMinimum = top
        i = peak
        while i < y.count, y[i] <= top {
            if y[i] < rightMinimum {
                rightMinimum = y[i]
                right = i
            }
            i += 1
        }
        return (top - max(leftMinimum, rightMinimum), left, right)
    }

    /// Where the curve crosses `relative` of the prominence below the maximum on each side, within the
    /// bases, interpolated linearly between the samples around the crossing.
    public static func width(
        of peak: Int,
        in y: [Double],
        prominence: Double,
        bases: (left: Int, right: Int),
        relative: Double
    ) -> (left: Double, right: Double) {
        width(of: peak, prominence: prominence, bases: bases, relative: relative) { y[$0] }
    }

    /// The same crossing for a curve given sample by sample (only the samples from the peak out to the
    /// crossings are read).
    static func width(
        of peak: Int,
        prominence: Double,
        bases: (left: Int, right: Int),
        relative: Double,
        _ y: (Int) -> Double
    ) -> (left: Double, right: Double) {
        let height = y(peak) - prominence * relative
        var i = peak
        while bases.left < i, height < y(i) { i -= 1 }
        var left = Double(i)
        if y(i) < height { left += (height - y(i)) / (y(i + 1) - y(i)) }
        i = peak
        while i < bases.right, height < y(i) { i += 1 }
        var right = Double(i)
        if y(i) < height { right -= (height - y(i)) / (y(i - 1) - y(i)) }
        return (left, right)
    }
}
