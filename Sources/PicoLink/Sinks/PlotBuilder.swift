import MethodSCRIPT

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Collects packages and turns them into the plots that suit what was measured: current against
/// potential for voltammetry (a curve per scan and per current the script sends, so SWV's `c`, `f`
/// and `r` are three), current against the device's time for chronoamperometry, Nyquist (with its
/// points marked and a few of their frequencies) and Bode (modulus and phase) for EIS, and each
/// variable against the package number (or the device's time) for anything else. Axes are named
/// after the quantity and the script's variable (`E = p`, `I = c`). A run without packages is one
/// empty plot, which the renderer fills with the reason.
public struct PlotBuilder: Sendable {
    /// One value's place in a package: the script's name for it (nil when not known), its type, and
    /// how many values of the same name and type come before it in the package (SWV's three `ba`).
    struct Column: Hashable {
        var name: String?
        var variable: VariableType
        var occurrence: Int

        var quantity: Quantity? { variable.info?.quantity }

        /// The script's name, else the type code (`ba`, then `ba 2` for a second unnamed one).
        var displayName: String { name ?? (occurrence == 0 ? variable.code : "\(variable.code) \(occurrence + 1)") }

        /// The quantity's symbol, if it has one: `E`, `I`, `t`, `f`, `Z'`, `-Z''`…
        var symbol: String? { PlotBuilder.symbol(of: variable) }

        /// The axis label: `E = p`, `t` (the script calls it `t` too), `E` (no name known), `x` (a
        /// quantity without a symbol).
        var axisLabel: String { PlotBuilder.label(symbol: symbol, name: name) ?? displayName }

        /// The columns of `package`'s values, in order.
        static func of(_ package: PicoPackage) -> [Column] {
            var columns: [Column] = []
            for value in package.values {
                let occurrence = columns.filter { $0.name == value.name && $0.variable == value.variable }.count
                columns.append(Column(name: value.name, variable: value.variable, occurrence: occurrence))
            }
            return columns
        }
    }

    private var packages: [PicoPackage] = []
    /// What every plot's title starts with (the SVG sink gives `<device> run <n> (<title>)`).
    public private(set) var title: String

    /// A builder with no packages yet.
    public init(title: String) { self.title = title }

    /// Keeps `package` for the plots.
    public mutating func add(_ package: PicoPackage) { packages.append(package) }

    /// Packages added so far.
    public var count: Int { packages.count }

    /// The plots: at least one (an empty one, titled "no data", before the first package).
    public func plots() -> [Plot] {
        guard !packages.isEmpty else {
            return [
                Plot(
                    title: "\(title): no data",
                    x: .init(label: "package", unit: ""),
                    y: .init(label: "", unit: ""),
                    series: []
                )
            ]
        }
        if PSTraceTable.isImpedance(packages) { return impedancePlots() }
        var columns: [Column] = []
        for package in packages {
            for column in Column.of(package) where !columns.contains(column) { columns.append(column) }
        }
        let currents = columns.filter { $0.quantity == .current }
        if !currents.isEmpty {
            if let time = columns.first(where: { $0.variable.code == "eb" }) {
                return [curves(x: time, y: currents, what: "current vs time")]
            }
            if let potential = columns.first(where: { $0.variable.code == "da" })
                ?? columns.first(where: { $0.quantity == .potential })
            {
                return [curves(x: potential, y: currents, what: "current vs potential")]
            }
        }
        return genericPlots(columns)
    }

    // MARK: Curves

    /// The value of each column of `package`.
    private static func values(_ package: PicoPackage) -> [Column: Double] {
        Dictionary(zip(Column.of(package), package.values.map(\.value)), uniquingKeysWith: { first, _ in first })
    }

    /// "scan 2", or "loop 3" outside scans.
    private static func groupName(loop: Int, scan: Int?) -> String {
        scan.map { "scan \($0)" } ?? "loop \(loop)"
    }

    /// Each `y` column against `x`, a curve per scan (or measurement loop) and column. Curves are named
    /// after the scan when there is one column (`scan 3`), after the column when there is one scan
    /// (`f`), after both otherwise (`f, scan 3`).
    private func curves(x: Column, y: [Column], what: String) -> Plot {
        var groups: [(name: String, series: [Plot.Series])] = []
        var key: (loop: Int, scan: Int?)? = nil
        for package in packages {
            let values = Self.values(package)
            guard let xValue = values[x] else { continue }
            if key == nil || key! != (package.loop, package.scan) {
                key = (package.loop, package.scan)
                groups.append(
                    (
                        Self.groupName(loop: package.loop, scan: package.scan),
                        y.map { Plot.Series(name: $0.displayName) }
                    )
                )
            }
            for (index, column) in y.enumerated() {
                guard let yValue = values[column] else { continue }
                groups[groups.count - 1].series[index].append(x: xValue, y: yValue)
            }
        }
        var series: [Plot.Series] = []
        for group in groups {
            for var curve in group.series where !curve.x.isEmpty {
                if y.count == 1 {
                    curve.name = group.name
                } else if groups.count > 1 {
                    curve.name += ", " + group.name
                }
                series.append(curve)
            }
        }
        // One column: its label (`I = c`). Several: their common symbol (`I`), the legend names them.
        var yLabel = y[0].axisLabel
        if y.count > 1 { yLabel = Set(y.map(\.symbol)).count == 1 ? y[0].symbol ?? "value" : "value" }
        let units = Set(y.map(\.variable.unit))
        return Plot(
            title: "\(title): \(what)",
            x: .init(label: x.axisLabel, unit: x.variable.unit),
            y: .init(label: yLabel, unit: units.count == 1 ? units.first! : ""),
            series: series
        )
    }

    // MARK: Impedance

    /// The script's name for the first value of type `code`, if the packages have one.
    private func name(of code: String) -> String? {
        for package in packages {
            if let value = package.values.first(where: { $0.code == code }) { return value.name }
        }
        return nil
    }

    /// Nyquist (−Z'' against Z', equal scales, points marked, a few labelled with their frequency)
    /// and Bode (|Z| and −phase against the frequency, the phase on a second axis); a curve per scan
    /// or measurement loop. Z' and −Z'' as the device sends them (`cc`, `cd`), or computed from the
    /// phase and modulus (`ca`, `cb`).
    private func impedancePlots() -> [Plot] {
        struct Sweep {
            var name: String
            var nyquist = Plot.Series(name: "Z", markers: true)
            var modulus = Plot.Series(name: "|Z|", markers: true)
            var phase = Plot.Series(name: "-phase", markers: true, onSecondAxis: true)
            var frequencies: [Double] = []
        }
        var sweeps: [Sweep] = []
        var key: (loop: Int, scan: Int?)? = nil
        var fromCartesian = false
        for package in packages {
            guard let frequency = package["dc"] else { continue }
            // The device's `cd` is −Z'' (positive for a capacitive cell, as in PalmSens' own output),
            // which is what a Nyquist plot and a "−phase" Bode plot draw upwards.
            let real: Double
            let negativeImaginary: Double
            if let cc = package["cc"], let cd = package["cd"] {
                (real, negativeImaginary) = (cc, cd)
                fromCartesian = true
            } else if let phase = package["ca"], let modulus = package["cb"] {
                (real, negativeImaginary) = (modulus * cos(phase * .pi / 180), -modulus * sin(phase * .pi / 180))
            } else {
                continue
            }
            if key == nil || key! != (package.loop, package.scan) {
                key = (package.loop, package.scan)
                sweeps.append(Sweep(name: Self.groupName(loop: package.loop, scan: package.scan)))
            }
            let modulus = package["cb"] ?? (real * real + negativeImaginary * negativeImaginary).squareRoot()
            sweeps[sweeps.count - 1].nyquist.append(x: real, y: negativeImaginary)
            sweeps[sweeps.count - 1].modulus.append(x: frequency, y: modulus)
            sweeps[sweeps.count - 1].phase.append(x: frequency, y: atan2(negativeImaginary, real) * 180 / .pi)
            sweeps[sweeps.count - 1].frequencies.append(frequency)
        }
        var nyquist: [Plot.Series] = []
        var bode: [Plot.Series] = []
        for var sweep in sweeps {
            sweep.nyquist.pointLabels = Self.frequencyLabels(sweep.frequencies)
            if sweeps.count > 1 {
                sweep.nyquist.name = sweep.name
                sweep.modulus.name += ", " + sweep.name
                sweep.phase.name += ", " + sweep.name
            }
            nyquist.append(sweep.nyquist)
            bode += [sweep.modulus, sweep.phase]
        }
        // Computed from the phase and modulus, Z' and −Z'' are none of the script's variables.
        let realName = fromCartesian ? name(of: "cc") : nil
        let imaginaryName = fromCartesian ? name(of: "cd") : nil
        return [
            Plot(
                title: "\(title): Nyquist",
                x: .init(label: Self.label(symbol: "Z'", name: realName)!, unit: "Ω"),
                y: .init(label: Self.label(symbol: "-Z''", name: imaginaryName)!, unit: "Ω"),
                series: nyquist,
                equalAspect: true
            ),
            Plot(
                title: "\(title): Bode",
                x: .init(label: Self.label(symbol: "f", name: name(of: "dc"))!, unit: "Hz", logarithmic: true),
                y: .init(label: Self.label(symbol: "|Z|", name: name(of: "cb"))!, unit: "Ω", logarithmic: true),
                y2: .init(label: "-phase", unit: "°"),
                series: bode
            ),
        ]
    }

    /// Labels for a few points of a sweep: the one nearest each decade of frequency (at most six
    /// decades, evenly spread from the highest), or the first and last point when the sweep spans no
    /// decade.
    static func frequencyLabels(_ frequencies: [Double]) -> [Plot.PointLabel] {
        let usable = frequencies.indices.filter { frequencies[$0].isFinite && frequencies[$0] > 0 }
        guard let firstIndex = usable.first, let lastIndex = usable.last else { return [] }
        let logs = usable.map { log10(frequencies[$0]) }
        var chosen: [Int] = []
        let lowest = Int(logs.min()!.rounded(.up))
        let highest = Int(logs.max()!.rounded(.down))
        if lowest <= highest {
            let every = (highest - lowest + 6) / 6
            for decade in stride(from: highest, through: lowest, by: -every) {
                let nearest = logs.indices.min { abs(logs[$0] - Double(decade)) < abs(logs[$1] - Double(decade)) }!
                if abs(logs[nearest] - Double(decade)) <= 0.2, !chosen.contains(usable[nearest]) {
                    chosen.append(usable[nearest])
                }
            }
        }
        if chosen.count < 2 { chosen = firstIndex == lastIndex ? [firstIndex] : [firstIndex, lastIndex] }
        return chosen.sorted().map { Plot.PointLabel(index: $0, text: SIFormat.format(frequencies[$0], unit: "Hz")) }
    }

    // MARK: Anything else

    /// One plot per value the script sends, against the device's time when it sends one, else against
    /// the package number.
    private func genericPlots(_ columns: [Column]) -> [Plot] {
        let time = columns.first { $0.variable.code == "eb" }
        let shown = columns.filter { $0 != time || columns.count == 1 }
        return shown.map { column in
            var series = Plot.Series(name: column.displayName)
            let against = time.flatMap { $0 == column ? nil : $0 }
            for package in packages {
                let values = Self.values(package)
                guard let value = values[column] else { continue }
                if let against {
                    guard let t = values[against] else { continue }
                    series.append(x: t, y: value)
                } else {
                    series.append(x: Double(package.index), y: value)
                }
            }
            let quantity = column.variable.info?.name ?? "unknown"
            return Plot(
                title: "\(title): \(column.displayName) (\(quantity))",
                x: against.map { .init(label: $0.axisLabel, unit: $0.variable.unit) }
                    ?? .init(label: "package", unit: ""),
                y: .init(label: column.axisLabel, unit: column.variable.unit),
                series: [series]
            )
        }
    }

    // MARK: Names

    /// The symbol of a quantity on an axis: `E`, `I`, `t`, `f`, `T`, `φ`; `Z'`, `-Z''`, `|Z|` for the
    /// impedance types; nil for a quantity without one.
    static func symbol(of variable: VariableType) -> String? {
        switch variable.code {
        case "cc", "cl", "cn", "cp": return "Z'"
        case "cd", "cm", "co", "cq": return "-Z''"
        case "cb": return "|Z|"
        default: break
        }
        switch variable.info?.quantity {
        case .potential: return "E"
        case .current: return "I"
        case .phase: return "φ"
        case .impedance: return "Z"
        case .frequency: return "f"
        case .time: return "t"
        case .temperature: return "T"
        case .timePerPotential, .some(.none), nil: return nil
        }
    }

    /// `E = p`; `t` when the script's name is the symbol; the symbol or the name alone when there is
    /// only one of them.
    static func label(symbol: String?, name: String?) -> String? {
        guard let symbol else { return name }
        guard let name, name != symbol else { return symbol }
        return "\(symbol) = \(name)"
    }
}
