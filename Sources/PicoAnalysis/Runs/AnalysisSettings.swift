/// How a run is analysed: the peak settings and scan rate for voltammograms, the circuit, weighting and
/// iteration limit for impedance spectra. `hcipico analyze`'s options, a rig's `[analysis]` table and a
/// method file's `[analysis]` table all give these, in the same words (`parse`).
public struct AnalysisSettings: Sendable, Hashable {
    /// Why a setting was refused: its name and what is wrong.
    public struct SettingError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The setting's name as the rig's table spells it (`smooth`, `circuit`).
        public let setting: String
        /// What is wrong.
        public let message: String

        /// `smooth: …`.
        public var description: String { "\(setting): \(message)" }
    }

    /// The settings' names as tables spell them.
    public static let names = [
        "smooth", "smooth_order", "min_height", "min_width", "merge", "baseline", "scan_rate", "circuit",
        "weighting", "max_iterations",
    ]

    /// How peaks are looked for.
    public var peaks: PeakSettings
    /// The sweeps' scan rate (V/s), to give each peak's charge; nil for none.
    public var scanRate: Double?
    /// The circuit fitted to impedance spectra.
    public var circuit: EquivalentCircuit
    /// The fit's weighting.
    public var weighting: FitWeighting
    /// The most iterations a fit may take.
    public var maximumIterations: Int

    /// The defaults: peaks as `PeakSettings()` gives them, no scan rate, `R(RC)` (a resistor in series
    /// with a resistor and a capacitor in parallel: the simplest cell with a charge transfer) fitted with
    /// modulus weighting in at most 500 iterations.
    public init(
        peaks: PeakSettings = PeakSettings(),
        scanRate: Double? = nil,
        circuit: EquivalentCircuit = Self.defaultCircuit,
        weighting: FitWeighting = .modulus,
        maximumIterations: Int = 500
    ) {
        self.peaks = peaks
        self.scanRate = scanRate
        self.circuit = circuit
        self.weighting = weighting
        self.maximumIterations = maximumIterations
    }

    /// `R(RC)`.
    public static let defaultCircuit: EquivalentCircuit = {
        do { return try EquivalentCircuit("R(RC)") } catch { fatalError("R(RC) is a valid circuit: \(error)") }
    }()

    /// These settings with `value` (as text) given for the setting `name`.
    ///
    /// - `smooth`: `auto`, `off` or an odd number of points from 3; `smooth_order`: 1 to 5, below the window.
    /// - `min_height`: A (`auto` for 2 % of the sweep's span); `min_width`: V; `merge`: `true`/`false`.
    /// - `baseline`: `feet`, or `E1,E2` in V; `scan_rate`: V/s.
    /// - `circuit`: Boukamp's code; `weighting`: `unit`, `modulus`, `proportional`; `max_iterations`: ≥ 1.
    public func with(_ name: String, _ value: String) throws(SettingError) -> AnalysisSettings {
        var settings = self
        func fail(_ message: String) -> SettingError { SettingError(setting: name, message: message) }
        func number(_ what: String) throws(SettingError) -> Double {
            guard let number = Double(value), number.isFinite else { throw fail("\(value) is not \(what)") }
            return number
        }
        switch name {
        case "smooth":
            switch value {
            case "auto": settings.peaks.smoothingWindow = 0
            case "off": settings.peaks.smoothingWindow = nil
            default:
                guard let window = Int(value), window >= 3, window % 2 == 1 else {
                    throw fail("\(value): an odd number of points from 3, auto or off")
                }
                settings.peaks.smoothingWindow = window
            }
        case "smooth_order":
            guard let order = Int(value), (1...5).contains(order) else { throw fail("\(value): 1 to 5") }
            settings.peaks.smoothingOrder = order
        case "min_height":
            if value == "auto" {
                settings.peaks.minimumHeight = nil
            } else {
                let height = try number("a current in A")
                guard height >= 0 else { throw fail("\(value): not below 0") }
                settings.peaks.minimumHeight = height
            }
        case "min_width":
            let width = try number("a potential in V")
            guard width >= 0 else { throw fail("\(value): not below 0") }
            settings.peaks.minimumWidth = width
        case "merge":
            guard let merge = Bool(value) else { throw fail("\(value): true or false") }
            settings.peaks.mergeOverlapping = merge
        case "baseline":
            if value == "feet" {
                settings.peaks.baseline = .feet
            } else {
                let parts = value.split(separator: ",").compactMap { Double($0.filter { $0 != " " }) }
                guard parts.count == 2, parts[0] != parts[1], parts.allSatisfy(\.isFinite) else {
                    throw fail("\(value): feet, or two different potentials E1,E2 in V")
                }
                settings.peaks.baseline = .through(parts[0], parts[1])
            }
        case "scan_rate":
            let rate = try number("a scan rate in V/s")
            guard rate > 0 else { throw fail("\(value): above 0") }
            settings.scanRate = rate
        case "circuit":
            do { settings.circuit = try EquivalentCircuit(value) } catch { throw fail("\(value): \(error)") }
        case "weighting":
            guard let weighting = FitWeighting(rawValue: value) else {
                throw fail("\(value): one of \(FitWeighting.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            settings.weighting = weighting
        case "max_iterations":
            guard let iterations = Int(value), iterations >= 1 else { throw fail("\(value): a whole number from 1") }
            settings.maximumIterations = iterations
        default:
            throw fail("not a setting; the settings are \(Self.names.joined(separator: ", "))")
        }
        if let window = settings.peaks.smoothingWindow, window > 0, settings.peaks.smoothingOrder >= window {
            throw SettingError(setting: "smooth_order", message: "must be below the smoothing window (\(window))")
        }
        return settings
    }
}
