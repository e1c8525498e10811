/// Formatting of HCI units for reports.
package enum LinkTuningFormat {
    /// 1.25 ms units as milliseconds ("7.5", "15").
    package static func interval(_ units: UInt16) -> String { hundredths(Int(units) * 125) }

    /// Hundredths of a millisecond as a short decimal.
    package static func hundredths(_ value: Int) -> String {
        let whole = value / 100
        let fraction = value % 100
        if fraction == 0 { return "\(whole)" }
        return fraction % 10 == 0 ? "\(whole).\(fraction / 10)" : "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    package static func parameters(_ parameters: HCIConnectionParameters) -> String {
        "interval \(interval(parameters.intervalMin))–\(interval(parameters.intervalMax)) ms, latency \(parameters.latency), timeout \(Int(parameters.supervisionTimeout) * 10) ms"
    }
}
