/// One peak of a voltammogram. Currents follow IUPAC's sign: a peak found while the potential rises is
/// positive (anodic), one while it falls negative (cathodic), the other way round for a square wave's
/// reverse current; `height` and `area` take the peak's sign.
public struct VoltammetricPeak: Sendable, Hashable, Codable {
    /// Whether the potential rose (anodic) or fell (cathodic) in the sweep where the peak was found.
    public enum Direction: String, Sendable, Hashable, Codable {
        /// The potential rising: an oxidation, a positive current peak.
        case anodic
        /// The potential falling: a reduction, a negative current peak.
        case cathodic
    }

    /// The scan the peak is in (1 for a single sweep).
    public var scan: Int
    /// Its sweep within the scan: 1, 2, … each time the potential turns.
    public var sweep: Int
    /// Which way the potential went.
    public var direction: Direction
    /// The index of its point in the voltammogram.
    public var index: Int
    /// The potential at its top (V).
    public var potential: Double
    /// The current at its top (A), after smoothing when it was asked for.
    public var current: Double
    /// The baseline's current at the peak's potential (A).
    public var baselineCurrent: Double
    /// The current above the baseline at the top (A).
    public var height: Double
    /// Its prominence (A): the top above the higher of its feet, as scipy's `find_peaks` gives it.
    public var prominence: Double
    /// Its width at half its height above the baseline (V).
    public var width: Double
    /// The area between the curve and the baseline from foot to foot (A·V).
    public var area: Double
    /// That area over the scan rate, when the sweep has one (C).
    public var charge: Double?
    /// The potentials of its feet, where the baseline is anchored when drawn between them (V).
    public var leftFoot: Double
    /// The right foot.
    public var rightFoot: Double
    /// The baseline's current at the left foot (A): with `rightFootBaseline`, the baseline as drawn.
    public var leftFootBaseline: Double
    /// The baseline's current at the right foot (A).
    public var rightFootBaseline: Double

    /// A peak as given (the analysis makes them; tests and readers of stored results too).
    public init(
        scan: Int,
        sweep: Int,
        direction: Direction,
        index: Int,
        potential: Double,
        current: Double,
        baselineCurrent: Double,
        height: Double,
        prominence: Double,
        width: Double,
        area: Double,
        charge: Double?,
        leftFoot: Double,
        rightFoot: Double,
        leftFootBaseline: Double,
        rightFootBaseline: Double
    ) {
        self.scan = scan
        self.sweep = sweep
        self.direction = direction
        self.index = index
        self.potential = potential
        self.current = current
        self.baselineCurrent = baselineCurrent
        self.height = height
        self.prominence = prominence
        self.width = width
        self.area = area
        self.charge = charge
        self.leftFoot = leftFoot
        self.rightFoot = rightFoot
        self.leftFootBaseline = leftFootBaseline
        self.rightFootBaseline = rightFootBaseline
    }
}
