extension Plot {
    /// Marks drawn in black over a chart's curves: a run's analysis on its plot (peaks with their
    /// baselines on a voltammogram, a fitted circuit's curve on the Nyquist and Bode plots). The chart's
    /// scales take its points in; a caption in the plot area names it.
    public struct Overlay: Sendable, Equatable {
        /// Which chart it goes on, by what its axes show.
        public enum Target: Sendable, Equatable {
            /// Current against potential.
            case voltammogram
            /// −Z″ against Z′.
            case nyquist
            /// |Z| (and −phase on the second axis) against frequency.
            case bode
        }

        /// A point marked with a ring and a text beside it.
        public struct Mark: Sendable, Equatable {
            /// Where, in the x axis' unit.
            public var x: Double
            /// Where, in the y axis' unit.
            public var y: Double
            /// The text beside the ring.
            public var label: String

            /// A mark at (`x`, `y`) with `label`.
            public init(x: Double, y: Double, label: String) {
                self.x = x
                self.y = y
                self.label = label
            }
        }

        /// Which chart.
        public var target: Target
        /// The caption (`fit R(RC)`, `peaks and baselines`).
        public var name: String
        /// Dashed lines, each through its points in order (on the second y axis when it says so).
        public var lines: [Series]
        /// Marked points.
        public var marks: [Mark]

        /// An overlay for `target`.
        public init(target: Target, name: String, lines: [Series] = [], marks: [Mark] = []) {
            self.target = target
            self.name = name
            self.lines = lines
            self.marks = marks
        }

        /// Whether `plot` is the kind of chart this overlay is for.
        func fits(_ plot: Plot) -> Bool {
            switch target {
            case .voltammogram: plot.x.unit == "V" && plot.y.unit == "A"
            case .nyquist: plot.x.unit == "Ω" && plot.y.unit == "Ω"
            case .bode: plot.x.unit == "Hz" && plot.y.unit == "Ω"
            }
        }
    }
}
