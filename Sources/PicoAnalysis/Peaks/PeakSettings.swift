/// How peaks are looked for in a voltammogram.
public struct PeakSettings: Sendable, Hashable, Codable {
    /// Where a peak's baseline is drawn.
    public enum Baseline: Sendable, Hashable, Codable {
        /// A straight line between the peak's feet: the lowest points on each side before the curve rises
        /// above the peak (its prominence's bases).
        case feet
        /// A straight line through the curve at these two potentials (V), the same for every peak.
        case through(Double, Double)
    }

    /// Savitzky–Golay smoothing first: nil for none, 0 for a window chosen from the number of points
    /// (`SavitzkyGolay.automaticWindow`), or an odd number of points.
    public var smoothingWindow: Int?
    /// The smoothing polynomial's order.
    public var smoothingOrder: Int
    /// The smallest peak kept: its prominence (its height above the higher of its feet), in A; nil for 2 %
    /// of the current's span in its sweep.
    public var minimumHeight: Double?
    /// The narrowest peak kept: its width at half its prominence (scipy's `width`), in V.
    public var minimumWidth: Double
    /// Whether neighbouring peaks not resolved at half height (the curve between them stays above half
    /// the lower one's height) are merged into the highest of them, with the outermost feet, instead of
    /// kept apart.
    public var mergeOverlapping: Bool
    /// The baseline.
    public var baseline: Baseline

    /// Smoothing with a window chosen from the data (order 2), peaks of at least 2 % of the span, kept
    /// apart, over a baseline between their feet.
    public init(
        smoothingWindow: Int? = 0,
        smoothingOrder: Int = 2,
        minimumHeight: Double? = nil,
        minimumWidth: Double = 0,
        mergeOverlapping: Bool = false,
        baseline: Baseline = .feet
    ) {
        self.smoothingWindow = smoothingWindow
        self.smoothingOrder = smoothingOrder
        self.minimumHeight = minimumHeight
        self.minimumWidth = minimumWidth
        self.mergeOverlapping = mergeOverlapping
        self.baseline = baseline
    }
}
