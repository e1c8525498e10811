/// Writes a method's MethodSCRIPT the way PalmSens' own examples set up a measurement: the second channel
/// off, the mode, the bandwidth, the applied potential span, the current range and its autoranging, the
/// start potential, the cell on, the equilibration wait, the loops with one package per point (repeated in
/// a counted `loop` when the method has cycles), and `on_finished: cell_off` always.
enum MethodScriptRenderer {
    /// The potentiostat modes (`set_pgstat_mode`).
    enum Mode: Int {
        case lowSpeed = 2
        case highSpeed = 3
        case maxRange = 4
    }

    struct NoMode: Error {}

    /// Width of the applied potentials' span (V).
    static func window(of method: any TechniqueMethod) -> Double {
        let potentials = method.appliedPotentials
        guard let low = potentials.min(), let high = potentials.max() else { return 0 }
        return high - low
    }

    /// Low speed when the bandwidth allows it and the potentials fit its span, then max range, then high
    /// speed (EIS is always high speed); `NoMode` when no mode fits (`Specs/methodscript/instrument-limits.csv`).
    static func pgstatMode(for method: any TechniqueMethod) throws(NoMode) -> Mode {
        let width = window(of: method)
        let potentials = method.appliedPotentials
        let slow = method.bandwidth <= (InstrumentLimit.bandwidthLowSpeed.maximum ?? 0)
        if type(of: method).technique != .eis, slow {
            if potentials.allSatisfy(InstrumentLimit.potentialLowSpeed.contains),
                InstrumentLimit.windowLowSpeed.contains(width)
            {
                return .lowSpeed
            }
            if InstrumentLimit.windowMaxRange.contains(width) { return .maxRange }
        }
        if InstrumentLimit.windowHighSpeed.contains(width) { return .highSpeed }
        throw NoMode()
    }

    /// The script, `e` line first and ending with the empty line; the method must be valid.
    static func script(for method: any TechniqueMethod) -> String {
        let values = method.values
        let mode = (try? pgstatMode(for: method)) ?? .highSpeed
        var lines = ["e"]
        let names = type(of: method).variables
        lines += names.map { "var \($0)" }
        lines += ["set_pgstat_chan 1", "set_pgstat_mode 0", "set_pgstat_chan 0", "set_pgstat_mode \(mode.rawValue)"]
        lines.append("set_max_bandwidth \(MethodNumber.text(method.bandwidth.rounded(.up)))")
        let potentials = method.appliedPotentials
        if let low = potentials.min(), let high = potentials.max() {
            lines.append("set_range_minmax da \(MethodNumber.text(low)) \(MethodNumber.text(high))")
        }
        if let range = values["current_range"], let low = values["autorange_minimum"],
            let high = values["autorange_maximum"]
        {
            lines.append("set_range ba \(MethodNumber.text(range))")
            lines.append("set_autoranging ba \(MethodNumber.text(low)) \(MethodNumber.text(high))")
        }
        if let start = method.startPotential {
            lines.append("set_e \(MethodNumber.text(start))")
            lines.append("cell_on")
            if let wait = values["equilibration_time"], wait > 0 { lines.append("wait \(MethodNumber.text(wait))") }
        }
        let repeated = method.repetitions > 1
        let indent = repeated ? "  " : ""
        if repeated {
            lines.append("store_var cycle 0i ja")
            lines.append("loop cycle < \(method.repetitions)i")
        }
        for loop in method.loopLines {
            lines.append(indent + loop)
            lines += (["  pck_start"] + names.map { "  pck_add \($0)" } + ["  pck_end", "endloop"]).map { indent + $0 }
        }
        if repeated { lines += ["  add_var cycle 1i", "endloop"] }
        lines += ["on_finished:", "  cell_off"]
        return lines.joined(separator: "\n") + "\n\n"
    }

}
