#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Maps data values on one axis to pixels and chooses its ticks: on a linear axis 4 to 8 of them,
/// 1, 2 or 5 × 10ᵏ apart; on a logarithmic one the decades (1, 2 and 5 in each when there are at most
/// two, every second or more when there are over eight).
struct PlotScale {
    /// A tick step: `mantissa` (1, 2 or 5) × 10^`exponent`.
    struct Step: Equatable {
        var mantissa: Int
        var exponent: Int

        var value: Double { PlotScale.times(Double(mantissa), tenToThe: exponent) }

        /// The next larger 1–2–5 step.
        var next: Step {
            switch mantissa {
            case 1: Step(mantissa: 2, exponent: exponent)
            case 2: Step(mantissa: 5, exponent: exponent)
            default: Step(mantissa: 1, exponent: exponent + 1)
            }
        }

        /// The largest 1–2–5 step not above `rough` (a positive, finite number).
        static func below(_ rough: Double) -> Step {
            let exponent = Int(log10(rough).rounded(.down))
            let mantissa = rough / PlotScale.times(1, tenToThe: exponent)
            return Step(mantissa: mantissa >= 5 ? 5 : mantissa >= 2 ? 2 : 1, exponent: exponent)
        }

        /// The value of tick number `index` (exact for the decimal the tick stands for, as near as a
        /// Double gets).
        func tick(_ index: Int) -> Double { PlotScale.times(Double(index * mantissa), tenToThe: exponent) }
    }

    /// Most ticks a linear axis gets.
    static let maximumTicks = 8

    let lower: Double
    let upper: Double
    let logarithmic: Bool
    let ticks: [Double]
    /// The step between ticks of a linear scale; nil on a logarithmic one.
    let step: Step?

    /// A scale covering `values` (finite ones; positive ones when logarithmic), widened outwards to
    /// whole ticks. A constant series gets ±10 % around it (±1 around zero).
    init(covering values: [Double], logarithmic: Bool) {
        let usable = values.filter { $0.isFinite && (!logarithmic || $0 > 0) }
        if logarithmic {
            self.init(decadesFrom: max(usable.min() ?? 1, 1e-300), to: min(usable.max() ?? 10, 1e300))
            return
        }
        // Within ±10³⁰⁰ so that the span of any two stays finite; zero below 10⁻²⁸⁰ so that a tenth of
        // it is still a normal number.
        let linear = usable.map { abs($0) < 1e-280 ? 0 : min(max($0, -1e300), 1e300) }
        var low = linear.min() ?? 0
        var high = linear.max() ?? 1
        let size = max(abs(low), abs(high))
        // Differences below a billionth of the values themselves are rounding, not data.
        if high - low <= size * 1e-9 {
            let centre = (low + high) / 2
            let pad = centre == 0 ? 1 : abs(centre) * 0.1
            (low, high) = (centre - pad, centre + pad)
        }
        var step = Step.below((high - low) / 10)
        while Int((high / step.value).rounded(.up)) - Int((low / step.value).rounded(.down)) >= Self.maximumTicks {
            step = step.next
        }
        let first = Int((low / step.value).rounded(.down))
        let last = Int((high / step.value).rounded(.up))
        self.init(lower: step.tick(first), upper: step.tick(last), step: step, ticks: (first...last).map(step.tick))
    }

    private init(decadesFrom low: Double, to high: Double) {
        let first = Int(log10(low).rounded(.down))
        let last = max(Int(log10(high).rounded(.up)), first + 1)
        let decades = last - first
        var ticks: [Double] = []
        if decades <= 2 {
            for exponent in first..<last {
                ticks += [1.0, 2, 5].map { PlotScale.times($0, tenToThe: exponent) }
            }
            ticks.append(PlotScale.times(1, tenToThe: last))
        } else {
            let every = (decades + Self.maximumTicks - 1) / Self.maximumTicks
            let start = Int((Double(first) / Double(every)).rounded(.up)) * every
            ticks = stride(from: start, through: last, by: every).map { PlotScale.times(1, tenToThe: $0) }
        }
        self.init(
            lower: PlotScale.times(1, tenToThe: first),
            upper: PlotScale.times(1, tenToThe: last),
            logarithmic: true,
            step: nil,
            ticks: ticks
        )
    }

    private init(lower: Double, upper: Double, logarithmic: Bool = false, step: Step?, ticks: [Double]) {
        self.lower = lower
        self.upper = upper
        self.logarithmic = logarithmic
        self.step = step
        self.ticks = ticks
    }

    /// `value` × 10^`exponent`, dividing by an exact power of ten for negative exponents (so 3 × 10⁻¹
    /// is the Double nearest 0.3).
    static func times(_ value: Double, tenToThe exponent: Int) -> Double {
        exponent >= 0 ? value * pow(10, Double(exponent)) : value / pow(10, Double(-exponent))
    }

    /// The smallest 1, 2 or 5 × 10ⁿ not below `rough`.
    static func niceStep(_ rough: Double) -> Double {
        guard rough > 0, rough.isFinite else { return 1 }
        var step = Step.below(rough)
        while step.value < rough * 0.999_999 { step = step.next }
        return step.value
    }

    /// The position of `value` in [0, 1] along the axis.
    func fraction(_ value: Double) -> Double {
        if logarithmic { return (log10(value) - log10(lower)) / (log10(upper) - log10(lower)) }
        return (value - lower) / (upper - lower)
    }

    /// A linear scale widened about its centre to span `span` data units, with at most
    /// `maximumTicks` ticks inside it.
    func widened(to span: Double) -> PlotScale {
        let centre = (lower + upper) / 2
        let low = centre - span / 2
        let high = centre + span / 2
        var step = Step.below(span / 10)
        while Int((high / step.value).rounded(.down)) - Int((low / step.value).rounded(.up)) >= Self.maximumTicks {
            step = step.next
        }
        let first = Int((low / step.value).rounded(.up))
        let last = Int((high / step.value).rounded(.down))
        return PlotScale(lower: low, upper: high, step: step, ticks: (first...last).map(step.tick))
    }

    /// The ticks inside the scale.
    var visibleTicks: [Double] {
        let slack = (upper - lower) * 1e-9
        return ticks.filter { $0 >= lower - slack && $0 <= upper + slack }
    }

    // MARK: Labels

    /// The tick labels of an axis, and the unit its title shows.
    struct Labels: Equatable {
        /// One per tick of `visibleTicks`: plain numbers in `unit`.
        var texts: [String]
        /// The unit with its SI prefix (`mV`, `kΩ`), `×10⁶` for a scaled unitless axis, or the unit as
        /// given.
        var unit: String
        /// The power of ten the labels are in (a multiple of 3).
        var exponent: Int
    }

    /// Whether an axis in `unit` takes SI prefixes (not degrees, not a unitless one).
    static func takesPrefix(_ unit: String) -> Bool { !unit.isEmpty && !unit.hasPrefix("°") }

    /// The power of ten (a multiple of 3) the labels of a linear scale are printed in: the one that
    /// puts the largest tick in [1, 1000) for a unit with prefixes; for a unitless axis the same but
    /// only when its numbers would otherwise be long (from 10⁵, or below 0.01); otherwise 0.
    func preferredExponent(unit: String) -> Int {
        let largest = visibleTicks.map(abs).max() ?? 0
        if Self.takesPrefix(unit) { return SIFormat.exponent(of: largest) }
        if unit.isEmpty && largest > 0 && (largest >= 1e5 || largest < 1e-2) { return SIFormat.exponent(of: largest) }
        return 0
    }

    /// Labels for an axis in `unit` (`V`, `A`, `°`, `""`…): one SI prefix for the whole axis
    /// (`exponent`, else `preferredExponent`), every tick a plain number with as many decimals as the
    /// step needs, so no two are alike. A logarithmic axis takes the prefix that keeps its numbers
    /// shortest, or powers of ten (`10⁻²`) when even those would be long.
    func labels(unit: String, exponent: Int? = nil) -> Labels {
        let ticks = visibleTicks
        guard logarithmic else {
            let exponent = exponent ?? preferredExponent(unit: unit)
            let decimals = max(0, exponent - (step?.exponent ?? 0))
            let texts = ticks.map { SIFormat.fixed(PlotScale.times($0, tenToThe: -exponent), decimals: decimals) }
            return Labels(texts: texts, unit: Self.unitText(unit, exponent: exponent), exponent: exponent)
        }
        let candidates = Self.takesPrefix(unit) ? Array(stride(from: -18, through: 18, by: 3)) : [0]
        var best: (texts: [String], exponent: Int)? = nil
        for candidate in candidates {
            let texts = ticks.map { tick in
                let value = PlotScale.times(tick, tenToThe: -candidate)
                return SIFormat.fixed(value, decimals: max(0, -Int((log10(value) + 1e-9).rounded(.down))))
            }
            func cost(_ texts: [String]) -> (Int, Int) {
                (texts.map(\.count).max() ?? 0, texts.reduce(0) { $0 + $1.count })
            }
            if best == nil || cost(texts) < cost(best!.texts) { best = (texts, candidate) }
        }
        if let best, (best.texts.map(\.count).max() ?? 0) <= 6 {
            return Labels(
                texts: best.texts,
                unit: Self.unitText(unit, exponent: best.exponent),
                exponent: best.exponent
            )
        }
        let texts = ticks.map { tick in
            let power = Int((log10(tick) + 1e-9).rounded(.down))
            let mantissa = Int(PlotScale.times(tick, tenToThe: -power).rounded())
            return (mantissa == 1 ? "" : "\(mantissa)×") + SIFormat.powerOfTen(power)
        }
        return Labels(texts: texts, unit: unit, exponent: 0)
    }

    private static func unitText(_ unit: String, exponent: Int) -> String {
        if exponent == 0 { return unit }
        if unit.isEmpty { return "×" + SIFormat.powerOfTen(exponent) }
        return takesPrefix(unit) ? SIFormat.prefix(exponent) + unit : unit
    }
}
