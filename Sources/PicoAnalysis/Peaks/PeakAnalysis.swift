/// Finds the peaks of a voltammogram: per scan and sweep, the current (its sign turned so that the
/// sweep's peaks are maxima: positive while the potential rises, negative while it falls, the other way
/// round for a reversed current) optionally smoothed, its maxima found as scipy's `find_peaks` finds them,
/// and each measured against its baseline.
public enum PeakAnalysis {
    /// Every peak of `voltammogram` with `settings`; `scanRate` (V/s), when the sweeps have one, turns each
    /// peak's area into a charge.
    public static func peaks(
        in voltammogram: Voltammogram,
        settings: PeakSettings = PeakSettings(),
        scanRate: Double? = nil
    ) -> [VoltammetricPeak] {
        var result: [VoltammetricPeak] = []
        var sweepNumber = 0
        var lastScan: Int?
        for sweep in voltammogram.sweeps {
            if sweep.scan != lastScan {
                sweepNumber = 0
                lastScan = sweep.scan
            }
            sweepNumber += 1
            guard sweep.range.count >= 3 else { continue }
            let sign: Double = sweep.rising != voltammogram.reversed ? 1 : -1
            let potentials = Array(voltammogram.potentials[sweep.range])
            let raw = signed(voltammogram.currents[sweep.range], sign)
            let curve = smoothed(raw, settings)
            for found in candidates(of: curve, at: potentials, settings: settings) {
                let base = baseline(for: found, curve: curve, potentials: potentials, settings.baseline)
                let top = found.index
                let baselineAtTop = base(potentials[top])
                let area = self.area(curve, potentials, from: found.leftBase, to: found.rightBase, over: base)
                // The width at half the height above the baseline, between the feet.
                let half = PeakFinder.width(
                    of: top,
                    prominence: curve[top] - baselineAtTop,
                    bases: (found.leftBase, found.rightBase),
                    relative: 0.5
                ) { curve[$0] - base(potentials[$0]) }
                let right = interpolate(potentials, at: half.right)
                let left = interpolate(potentials, at: half.left)
                result.append(
                    VoltammetricPeak(
                        scan: sweep.scan,
                        sweep: sweepNumber,
                        direction: sweep.rising ? .anodic : .cathodic,
                        index: sweep.range.lowerBound + top,
                        potential: potentials[top],
                        current: sign * curve[top],
                        baselineCurrent: sign * baselineAtTop,
                        height: sign * (curve[top] - baselineAtTop),
                        prominence: found.prominence,
                        width: abs(right - left),
                        area: sign * area,
                        charge: scanRate.flatMap { $0 > 0 ? sign * area / $0 : nil },
                        leftFoot: potentials[found.leftBase],
                        rightFoot: potentials[found.rightBase],
                        leftFootBaseline: sign * base(potentials[found.leftBase]),
                        rightFootBaseline: sign * base(potentials[found.rightBase])
                    )
                )
            }
        }
        return result
    }

    /// `values` times `sign`, in a new array.
    static func signed(_ values: ArraySlice<Double>, _ sign: Double) -> [Double] {
        values.withUnsafeBufferPointer { values in
            [Double](unsafeUninitializedCapacity: values.count) { result, count in
                for i in values.indices { result.initializeElement(at: i, to: values[i] * sign) }
                count = values.count
            }
        }
    }

    /// The highest value less the lowest (NaNs left out), four lanes at a time.
    static func span(of values: [Double]) -> Double {
        values.withUnsafeBufferPointer { values in
            let finite = values.first { !$0.isNaN } ?? 0
            var lowest = SIMD4(repeating: finite)
            var highest = lowest
            var i = 0
            while i + 4 <= values.count {
                let lanes = SIMD4(values[i], values[i + 1], values[i + 2], values[i + 3])
                // A NaN lane compares false both ways and leaves the lane's extremes as they were.
                lowest.replace(with: lanes, where: lanes .< lowest)
                highest.replace(with: lanes, where: lanes .> highest)
                i += 4
            }
            var (low, high) = (lowest.min(), highest.max())
            while i < values.count {
                if values[i] < low { low = values[i] }
                if values[i] > high { high = values[i] }
                i += 1
            }
            return high - low
        }
    }

    /// The area between the curve and the baseline from sample `first` to `last` (trapezoids, A·V): the
    /// curve's trapezoids less the baseline's, which for a straight line over a sweep's monotonic
    /// potentials is one trapezoid.
    static func area(
        _ curve: [Double],
        _ potentials: [Double],
        from first: Int,
        to last: Int,
        over base: Line
    ) -> Double {
        guard last > first else { return 0 }
        // Four running sums, so that the additions do not wait on each other.
        var sums = SIMD4<Double>()
        curve.withUnsafeBufferPointer { curve in
            potentials.withUnsafeBufferPointer { potentials in
                var i = first + 1
                while i + 3 <= last {
                    let right = SIMD4(curve[i], curve[i + 1], curve[i + 2], curve[i + 3])
                    let left = SIMD4(curve[i - 1], curve[i], curve[i + 1], curve[i + 2])
                    let to = SIMD4(potentials[i], potentials[i + 1], potentials[i + 2], potentials[i + 3])
                    let from = SIMD4(potentials[i - 1], potentials[i], potentials[i + 1], potentials[i + 2])
                    let steps = to - from
                    sums += (left + right) * steps.replacing(with: -steps, where: steps .< 0)
                    i += 4
                }
                while i <= last {
                    sums[0] += (curve[i - 1] + curve[i]) * abs(potentials[i] - potentials[i - 1])
                    i += 1
                }
            }
        }
        let (from, to) = (potentials[first], potentials[last])
        return sums.sum() / 2 - (base(from) + base(to)) / 2 * abs(to - from)
    }

    /// The curve smoothed as `settings` ask (unchanged when the window does not fit the points).
    static func smoothed(_ values: [Double], _ settings: PeakSettings) -> [Double] {
        guard let asked = settings.smoothingWindow else { return values }
        let window = asked == 0 ? SavitzkyGolay.automaticWindow(for: values.count) : asked
        guard window <= values.count, let filter = SavitzkyGolay.cached(window: window, order: settings.smoothingOrder)
        else { return values }
        return filter.smooth(values)
    }

    /// The maxima of one sweep's curve that pass the thresholds, merged when asked.
    static func candidates(
        of curve: [Double],
        at potentials: [Double],
        settings: PeakSettings
    ) -> [PeakFinder.Candidate] {
        let threshold = settings.minimumHeight ?? 0.02 * span(of: curve)
        // A sweep keeps one direction: its mean step.
        let step =
            potentials.count > 1
            ? abs(potentials[potentials.count - 1] - potentials[0]) / Double(potentials.count - 1) : 0
        let minimumWidth = step > 0 ? settings.minimumWidth / step : 0
        let found = PeakFinder.peaks(curve, minimumProminence: threshold, minimumWidth: minimumWidth)
        return settings.mergeOverlapping ? merged(found, curve) : found
    }

    /// Neighbouring peaks that overlap, as one: the highest, with the outermost feet and edges. Two peaks
    /// overlap when the curve between them stays above half the lower one's height over the lower of
    /// their outer feet (they are not resolved at half height).
    static func merged(_ peaks: [PeakFinder.Candidate], _ curve: [Double]) -> [PeakFinder.Candidate] {
        var result: [PeakFinder.Candidate] = []
        for peak in peaks {
            guard var last = result.last else {
                result.append(peak)
                continue
            }
            let valley = curve[last.index...peak.index].min() ?? curve[peak.index]
            let foot = min(curve[last.leftBase], curve[peak.rightBase])
            let lower = min(curve[last.index], curve[peak.index])
            guard valley - foot > 0.5 * (lower - foot) else {
                result.append(peak)
                continue
            }
            let keep = peak.prominence > last.prominence ? peak : last
            last = PeakFinder.Candidate(
                index: keep.index,
                prominence: keep.prominence,
                leftBase: min(last.leftBase, peak.leftBase),
                rightBase: max(last.rightBase, peak.rightBase),
                width: max(last.rightEdge, peak.rightEdge) - min(last.leftEdge, peak.leftEdge),
                leftEdge: min(last.leftEdge, peak.leftEdge),
                rightEdge: max(last.rightEdge, peak.rightEdge)
            )
            result[result.count - 1] = last
        }
        return result
    }

    /// A straight line through (e1, i1) with `slope`; flat at `i1` when the two points share a potential.
    struct Line {
        let e1: Double
        let i1: Double
        let slope: Double

        func callAsFunction(_ potential: Double) -> Double { i1 + slope * (potential - e1) }
    }

    /// The baseline as a function of potential.
    static func baseline(
        for peak: PeakFinder.Candidate,
        curve: [Double],
        potentials: [Double],
        _ kind: PeakSettings.Baseline
    ) -> Line {
        let (e1, i1, e2, i2): (Double, Double, Double, Double)
        switch kind {
        case .feet:
            (e1, i1) = (potentials[peak.leftBase], curve[peak.leftBase])
            (e2, i2) = (potentials[peak.rightBase], curve[peak.rightBase])
        case .through(let a, let b):
            (e1, i1) = (a, value(of: curve, at: a, potentials: potentials))
            (e2, i2) = (b, value(of: curve, at: b, potentials: potentials))
        }
        guard e2 != e1 else { return Line(e1: e1, i1: (i1 + i2) / 2, slope: 0) }
        return Line(e1: e1, i1: i1, slope: (i2 - i1) / (e2 - e1))
    }

    /// The potential at a fractional sample index.
    static func interpolate(_ values: [Double], at position: Double) -> Double {
        let lower = max(0, min(values.count - 1, Int(position.rounded(.down))))
        let upper = min(values.count - 1, lower + 1)
        let fraction = position - Double(lower)
        return values[lower] + (values[upper] - values[lower]) * fraction
    }

    /// The curve at a potential, interpolated between the two nearest samples of the sweep (the end's value
    /// beyond its ends).
    static func value(of curve: [Double], at potential: Double, potentials: [Double]) -> Double {
        guard let first = potentials.first, let last = potentials.last else { return 0 }
        let rising = last >= first
        for i in 1..<potentials.count {
            let (a, b) = (potentials[i - 1], potentials[i])
            if (rising && potential >= a && potential <= b) || (!rising && potential <= a && potential >= b) {
                let fraction = b == a ? 0 : (potential - a) / (b - a)
                return curve[i - 1] + (curve[i] - curve[i - 1]) * fraction
            }
        }
        return abs(potential - first) < abs(potential - last) ? curve[0] : curve[curve.count - 1]
    }
}
