#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Maps data values on one axis to pixels, and chooses its tick marks (1–2–5 steps, or decades).
struct PlotScale {
    let lower: Double
    let upper: Double
    let logarithmic: Bool
    let ticks: [Double]

    /// A scale covering `values` (finite ones; positive ones when logarithmic).
    init(covering values: [Double], logarithmic: Bool) {
        self.logarithmic = logarithmic
        let usable = values.filter { $0.isFinite && (!logarithmic || $0 > 0) }
        var low = usable.min() ?? 0
        var high = usable.max() ?? 1
        if logarithmic {
            if usable.isEmpty { (low, high) = (1, 10) }
            let first = log10(low).rounded(.down)
            var last = log10(high).rounded(.up)
            if last <= first { last = first + 1 }
            lower = pow(10, first)
            upper = pow(10, last)
            ticks = stride(from: first, through: last, by: 1).map { pow(10, $0) }
            return
        }
        if low == high {
            let pad = low == 0 ? 1 : abs(low) * 0.1
            (low, high) = (low - pad, high + pad)
        }
        let step = PlotScale.niceStep((high - low) / 5)
        let first = Int((low / step).rounded(.down))
        let last = Int((high / step).rounded(.up))
        lower = Double(first) * step
        upper = Double(last) * step
        ticks = (first...last).map { Double($0) * step }
    }

    /// A linear scale from `lower` to `upper` with the given ticks (for equal-aspect adjustment).
    init(lower: Double, upper: Double, ticks: [Double]) {
        self.lower = lower
        self.upper = upper
        self.logarithmic = false
        self.ticks = ticks
    }

    /// The smallest 1, 2 or 5 × 10ⁿ not below `rough`.
    static func niceStep(_ rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        let magnitude = pow(10, log10(rough).rounded(.down))
        for factor in [1.0, 2, 5, 10] where factor * magnitude >= rough * 0.999_999 {
            return factor * magnitude
        }
        return 10 * magnitude
    }

    /// The position of `value` in [0, 1] along the axis.
    func fraction(_ value: Double) -> Double {
        if logarithmic { return (log10(value) - log10(lower)) / (log10(upper) - log10(lower)) }
        return (value - lower) / (upper - lower)
    }

    /// Widens a linear scale about its centre so that it spans `span` data units.
    func widened(to span: Double) -> PlotScale {
        let centre = (lower + upper) / 2
        let low = centre - span / 2
        let high = centre + span / 2
        let step = PlotScale.niceStep(span / 5)
        let ticks = (Int((low / step).rounded(.up))...Int((high / step).rounded(.down))).map { Double($0) * step }
        return PlotScale(lower: low, upper: high, ticks: ticks)
    }
}
