/// One chart: axes, scales and the series drawn on them. `SVGPlotRenderer` draws it.
public struct Plot: Sendable, Equatable {
    /// One axis of a chart.
    public struct Axis: Sendable, Equatable {
        /// What the axis shows: the quantity's symbol and the script's name for it (`E = p`), the
        /// symbol alone (`t`), or the script's name alone when the quantity has no symbol.
        public var label: String
        /// The SI base unit (`V`, `A`, `Ω`); the renderer adds the prefix its ticks are in.
        public var unit: String
        /// A log scale: only positive values are drawn against it.
        public var logarithmic: Bool

        /// An axis, linear unless `logarithmic`.
        public init(label: String, unit: String, logarithmic: Bool = false) {
            self.label = label
            self.unit = unit
            self.logarithmic = logarithmic
        }

        /// `"E (V)"`, or the bare label when there is no unit.
        public var title: String { unit.isEmpty ? label : "\(label) (\(unit))" }

        /// The title with the unit as the ticks are printed in it (`E = p (mV)`).
        func title(unit shown: String) -> String { shown.isEmpty ? label : "\(label) (\(shown))" }
    }

    /// A text beside one point of a series (a frequency on a Nyquist plot).
    public struct PointLabel: Sendable, Equatable {
        /// The point's index into the series' `x` and `y`.
        public var index: Int
        /// What is written beside the point, e.g. `1 kHz`.
        public var text: String

        /// The label `text` for point `index`.
        public init(index: Int, text: String) {
            self.index = index
            self.text = text
        }
    }

    /// One curve: its points, joined by a line in order, and how it is drawn.
    public struct Series: Sendable, Equatable {
        /// The curve's name in the legend.
        public var name: String
        /// The points' x values, in the x axis' unit.
        public var x: [Double]
        /// The points' y values, in the unit of the axis the curve is drawn against.
        public var y: [Double]
        /// A dot on every point (besides the line through them).
        public var markers: Bool
        /// Drawn against the plot's second (right-hand) y axis.
        public var onSecondAxis: Bool
        /// Texts beside some of the points, by index into `x` and `y`.
        public var pointLabels: [PointLabel]

        /// A curve; without markers, on the first y axis and without point labels unless given.
        public init(
            name: String,
            x: [Double] = [],
            y: [Double] = [],
            markers: Bool = false,
            onSecondAxis: Bool = false,
            pointLabels: [PointLabel] = []
        ) {
            self.name = name
            self.x = x
            self.y = y
            self.markers = markers
            self.onSecondAxis = onSecondAxis
            self.pointLabels = pointLabels
        }

        /// Adds the point (`x`, `y`) at the end.
        public mutating func append(x: Double, y: Double) {
            self.x.append(x)
            self.y.append(y)
        }

        /// The points that can be drawn on the given axes: finite, and positive on a log axis.
        func drawable(x xAxis: Axis, y yAxis: Axis) -> [(Double, Double)] {
            drawableIndices(x: xAxis, y: yAxis).map { (x[$0], y[$0]) }
        }

        /// The indices of the points `drawable` keeps.
        func drawableIndices(x xAxis: Axis, y yAxis: Axis) -> [Int] {
            (0..<min(x.count, y.count)).filter { index in
                let (px, py) = (x[index], y[index])
                return px.isFinite && py.isFinite && (!xAxis.logarithmic || px > 0) && (!yAxis.logarithmic || py > 0)
            }
        }
    }

    /// The chart's title.
    public var title: String
    /// The horizontal axis.
    public var x: Axis
    /// The left-hand vertical axis.
    public var y: Axis
    /// A second y axis on the right, for the series marked `onSecondAxis` (the phase of a Bode plot).
    public var y2: Axis?
    /// The curves, drawn in order.
    public var series: [Series]
    /// Same scale on both axes (a Nyquist plot must not distort its semicircle).
    public var equalAspect: Bool
    /// Marks over the curves (a run's analysis), drawn after them.
    public var overlays: [Overlay] = []

    /// A chart; by default without a second y axis and with independent scales.
    public init(title: String, x: Axis, y: Axis, y2: Axis? = nil, series: [Series], equalAspect: Bool = false) {
        self.title = title
        self.x = x
        self.y = y
        self.y2 = y2
        self.series = series
        self.equalAspect = equalAspect
    }

    /// The y axis `series` is drawn against.
    func yAxis(of series: Series) -> Axis { series.onSecondAxis ? (y2 ?? y) : y }

    /// Number of points that will be drawn.
    public var drawablePointCount: Int { series.reduce(0) { $0 + $1.drawable(x: x, y: yAxis(of: $1)).count } }
}
