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
        let (maxima, flat) = localMaximaAndFlatness(y)
        guard !maxima.isEmpty else { return found }
        let (leftBases, rightBases): ([Int], [Int])
        if flat {
            let (left, right) = bases(y)
            (leftBases, rightBases) = (maxima.map { left[$0] }, maxima.map { right[$0] })
        } else {
            (leftBases, rightBases) = bases(ofMaxima: maxima, in: y)
        }
        for (number, index) in maxima.enumerated() {
            let (left, right) = (leftBases[number], rightBases[number])
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
    public static func localMaxima(_ y: [Double]) -> [Int] { localMaximaAndFlatness(y).maxima }

    /// The local maxima, and whether any two neighbouring samples are equal (a curve without that has
    /// only strict maxima, and `bases(ofMaxima:in:)` holds for it).
    static func localMaximaAndFlatness(_ y: [Double]) -> (maxima: [Int], flat: Bool) {
        guard y.count >= 3 else { return ([], y.count == 2 && y[0] == y[1]) }
        return y.withUnsafeBufferPointer { y in
            let last = y.count - 1
            // Strict maxima first, without a branch on the data (noise makes such branches a coin toss);
            // equal neighbours anywhere send the curve to the walk that finds flat tops.
            var equals = 0
            let strict = [Int](unsafeUninitializedCapacity: last) { maxima, count in
                var found = 0
                for i in 1..<last {
                    maxima.initializeElement(at: found, to: i)
                    let top = y[i]
                    found &+= (y[i - 1] < top ? 1 : 0) & (y[i + 1] < top ? 1 : 0)
                    equals &+= y[i - 1] == top ? 1 : 0
                }
                equals &+= y[last - 1] == y[last] ? 1 : 0
                count = found
            }
            guard equals > 0 else { return (strict, false) }
            var maxima: [Int] = []
            var i = 1
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
            return (maxima, true)
        }
    }

    /// The bases `prominence(of:in:)` finds for each of `maxima` (every strict local maximum of `y`, in
    /// order, on a curve without equal neighbours), from the maxima alone and the valleys between them:
    /// the lowest sample before a higher one on the left lies in the valleys between the maxima it passes,
    /// since a sample in there lower than all after it would make a maximum higher than the peak between.
    /// One pass each way over a stack of maxima, as `bases(_:)` goes over every turning sample.
    static func bases(ofMaxima maxima: [Int], in y: [Double]) -> (left: [Int], right: [Int]) {
        let count = maxima.count
        var left = [Int](repeating: 0, count: count)
        var right = [Int](repeating: 0, count: count)
        // The valley before each maximum and the one after the last: the rightmost and the leftmost of its
        // lowest samples (the scans keep those); then the stack: its maxima's heights, and for each the
        // lowest sample of its stretch and that sample's value.
        let rightmostLow = UnsafeMutablePointer<Int>.allocate(capacity: count + 1)
        let leftmostLow = UnsafeMutablePointer<Int>.allocate(capacity: count + 1)
        let heights = UnsafeMutablePointer<Double>.allocate(capacity: count)
        let lowests = UnsafeMutablePointer<Int>.allocate(capacity: count)
        let lowestValues = UnsafeMutablePointer<Double>.allocate(capacity: count)
        defer {
            for pointer in [rightmostLow, leftmostLow, lowests] { pointer.deallocate() }
            heights.deallocate()
            lowestValues.deallocate()
        }
        y.withUnsafeBufferPointer { y in
            maxima.withUnsafeBufferPointer { maxima in
                var from = 0
                for valley in 0...count {
                    let to = valley < count ? maxima[valley] : y.count
                    var (rightmost, leftmost) = (from, from)
                    for i in from..<to {
                        rightmost = y[i] <= y[rightmost] ? i : rightmost
                        leftmost = y[i] < y[leftmost] ? i : leftmost
                    }
                    (rightmostLow[valley], leftmostLow[valley]) = (rightmost, leftmost)
                    if valley < count { from = maxima[valley] + 1 }
                }
                // One pass: `valley(number)` is the valley on the side the pass comes from.
                func pass(
                    _ numbers: StrideTo<Int>,
                    _ valley: (Int) -> Int,
                    into bases: UnsafeMutableBufferPointer<Int>
                ) {
                    var depth = 0
                    for number in numbers {
                        let top = y[maxima[number]]
                        var lowest = valley(number)
                        var lowestValue = y[lowest]
                        while depth > 0, heights[depth - 1] <= top {
                            depth -= 1
                            if lowestValues[depth] < lowestValue {
                                (lowest, lowestValue) = (lowests[depth], lowestValues[depth])
                            }
                        }
                        bases[number] = lowest
                        (heights[depth], lowests[depth], lowestValues[depth]) = (top, lowest, lowestValue)
                        depth += 1
                    }
                }
                left.withUnsafeMutableBufferPointer {
                    pass(stride(from: 0, to: count, by: 1), { rightmostLow[$0] }, into: $0)
                }
                right.withUnsafeMutableBufferPointer {
                    pass(stride(from: count - 1, to: -1, by: -1), { leftmostLow[$0 + 1] }, into: $0)
                }
            }
        }
        return (left, right)
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
            // Kept without a branch on the data, as in `localMaxima`.
            points[0] = 0
            var pointCount = 1
            for i in 1..<max(1, n - 1) {
                let (before, here, after) = (y[i - 1], y[i], y[i + 1])
                points[pointCount] = i
                let rising = (before < here ? 1 : 0) & (here < after ? 1 : 0)
                let falling = (before > here ? 1 : 0) & (here > after ? 1 : 0)
                pointCount &+= 1 &- (rising | falling)
            }
            if n > 1 {
                points[pointCount] = n - 1
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
