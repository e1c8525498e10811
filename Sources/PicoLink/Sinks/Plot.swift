/// One chart: axes, scales and the series drawn on them. `SVGPlotRenderer` draws it.
public struct Plot: Sendable, Equatable {
    public struct Axis: Sendable, Equatable {
        public var label: String
        public var unit: String
        public var logarithmic: Bool

        public init(label: String, unit: String, logarithmic: Bool = false) {
            self.label = label
            self.unit = unit
            self.logarithmic = logarithmic
        }

        /// `"E (V)"`, or the bare label when there is no unit.
        public var title: String { unit.isEmpty ? label : "\(label) (\(unit))" }
    }

    public struct Series: Sendable, Equatable {
        public var name: String
        public var x: [Double]
        public var y: [Double]

        public init(name: String, x: [Double] = [], y: [Double] = []) {
            self.name = name
            self.x = x
            self.y = y
        }

        public mutating func append(x: Double, y: Double) {
            self.x.append(x)
            self.y.append(y)
        }

        /// The points that can be drawn on the given axes: finite, and positive on a log axis.
        func drawable(x xAxis: Axis, y yAxis: Axis) -> [(Double, Double)] {
            zip(x, y).filter { point in
                point.0.isFinite && point.1.isFinite && (!xAxis.logarithmic || point.0 > 0)
                    && (!yAxis.logarithmic || point.1 > 0)
            }
        }
    }

    public var title: String
    public var x: Axis
    public var y: Axis
    public var series: [Series]
    /// Same scale on both axes (a Nyquist plot must not distort its semicircle).
    public var equalAspect: Bool

    public init(title: String, x: Axis, y: Axis, series: [Series], equalAspect: Bool = false) {
        self.title = title
        self.x = x
        self.y = y
        self.series = series
        self.equalAspect = equalAspect
    }

    /// Number of points that will be drawn.
    public var drawablePointCount: Int { series.reduce(0) { $0 + $1.drawable(x: x, y: y).count } }
}
