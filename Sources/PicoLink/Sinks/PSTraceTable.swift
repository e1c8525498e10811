#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lines of a PSTrace-style CSV export (`PSTraceSink`): six header lines, then the data.
///
/// | line | voltammetry, chronoamperometry | impedance | anything else |
/// |---|---|---|---|
/// | 1 | `Date and time:,START` | same | same |
/// | 2 | `Notes:,"PROVENANCE; end: …"` | same | same |
/// | 3 | a row of commas | same | same |
/// | 4 | `TITLE: I vs E Scan 1,,TITLE: I vs E Scan 2,` | `TITLE: impedance` | `TITLE: values` |
/// | 5 | `Date and time measurement:,CURVE START,` per curve | `Date and time measurement:,START` | same |
/// | 6 | `V,µA,V,µA` (`s,µA` against time) | `freq / Hz,neg. Phase / °,Idc / uA,Z / Ohm,Z' / Ohm,Z'' / Ohm,Cs / F` | `package,p [V],…` |
///
/// Curves (one per scan, or per measurement loop outside scans) stand side by side as (E, I) or
/// (t, I) column pairs, shorter ones padded with empty fields. Currents are in µA, shifted on the
/// decimal text so that they stay the decimals the device sent. Impedance is one row per frequency:
/// Z' and Z'' as sent (the device's `cd` is −Im Z, which PSTrace's `Z''` column also holds), |Z|, the
/// negated phase and the series capacitance computed from them; from phase and |Z| (`ca`, `cb`) when
/// the script sends those instead. Anything else is one row per package with a column per value.
/// Times are UTC.
struct PSTraceTable {
    private(set) var lines: [String] = []

    init(packages: [PicoPackage], title: String, startTime: Double, notes: String) {
        let start = UTCTime.dateTime(startTime)
        if Self.isImpedance(packages) {
            self.init(impedance: packages, title: title, start: start, notes: notes)
        } else if let axis = Self.curveAxis(packages) {
            self.init(curves: packages, axis: axis, title: title, start: start, notes: notes)
        } else {
            self.init(values: packages, title: title, start: start, notes: notes)
        }
    }

    /// The first three header lines, for `columns` columns.
    private static func head(columns: Int, start: String, notes: String) -> [String] {
        [
            "Date and time:,\(start)", "Notes:,\(SinkText.csv(notes))",
            String(repeating: ",", count: max(0, columns - 1)),
        ]
    }

    // MARK: Curves

    /// What curves are drawn against: the device's time, or a potential.
    enum CurveAxis {
        case time
        case potential
    }

    static func curveAxis(_ packages: [PicoPackage]) -> CurveAxis? {
        guard packages.contains(where: { current(of: $0) != nil }) else { return nil }
        if packages.contains(where: { $0.deviceTime != nil }) { return .time }
        return packages.contains(where: { potential(of: $0) != nil }) ? .potential : nil
    }

    /// A package's first current.
    static func current(of package: PicoPackage) -> Double? {
        package.values.first { $0.variable.info?.quantity == .current }?.value
    }

    /// A package's applied potential (`da`), else its first potential.
    static func potential(of package: PicoPackage) -> Double? {
        (package.values.first { $0.code == "da" } ?? package.values.first { $0.variable.info?.quantity == .potential })?
            .value
    }

    private init(curves packages: [PicoPackage], axis: CurveAxis, title: String, start: String, notes: String) {
        var curves: [(name: String, start: String, points: [(x: String, y: String)])] = []
        var key: (loop: Int, scan: Int?)? = nil
        for package in packages {
            let x = axis == .time ? package.deviceTime : Self.potential(of: package)
            guard let x, let i = Self.current(of: package) else { continue }
            if key == nil || key! != (package.loop, package.scan) {
                key = (package.loop, package.scan)
                let name = package.scan.map { "Scan \($0)" } ?? "Loop \(package.loop)"
                curves.append((name, UTCTime.dateTime(package.hostTime), []))
            }
            curves[curves.count - 1].points.append(
                (SinkText.number(x, nan: "NaN"), SinkText.number(i, timesTenToThe: 6, nan: "NaN"))
            )
        }
        let against = axis == .time ? "I vs t" : "I vs E"
        lines = Self.head(columns: 2 * max(curves.count, 1), start: start, notes: notes)
        lines.append(curves.map { SinkText.csv("\(title): \(against) \($0.name)") + "," }.joined(separator: ","))
        lines.append(curves.map { "Date and time measurement:,\($0.start)" }.joined(separator: ","))
        lines.append(curves.map { _ in axis == .time ? "s,µA" : "V,µA" }.joined(separator: ","))
        let length = curves.map(\.points.count).max() ?? 0
        for index in 0..<length {
            lines.append(
                curves.map { curve in
                    index < curve.points.count ? "\(curve.points[index].x),\(curve.points[index].y)" : ","
                }.joined(separator: ",")
            )
        }
    }

    // MARK: Impedance

    static func isImpedance(_ packages: [PicoPackage]) -> Bool {
        packages.contains { package in
            package["dc"] != nil
                && ((package["cc"] != nil && package["cd"] != nil) || (package["ca"] != nil && package["cb"] != nil))
        }
    }

    private init(impedance packages: [PicoPackage], title: String, start: String, notes: String) {
        let columns = ["freq / Hz", "neg. Phase / °", "Idc / uA", "Z / Ohm", "Z' / Ohm", "Z'' / Ohm", "Cs / F"]
        lines = Self.head(columns: columns.count, start: start, notes: notes)
        lines.append(SinkText.csv("\(title): impedance") + String(repeating: ",", count: columns.count - 1))
        lines.append("Date and time measurement:,\(start)" + String(repeating: ",", count: columns.count - 2))
        lines.append(columns.joined(separator: ","))
        for package in packages {
            guard let frequency = package["dc"] else { continue }
            // Z' and −Im Z as sent, or from the phase (of Z, in degrees) and |Z|.
            let real: Double
            let negativeImaginary: Double
            var realText: String? = nil
            var imaginaryText: String? = nil
            if let cc = package["cc"], let cd = package["cd"] {
                (real, negativeImaginary) = (cc, cd)
                (realText, imaginaryText) = (SinkText.number(cc, nan: "NaN"), SinkText.number(cd, nan: "NaN"))
            } else if let phase = package["ca"], let modulus = package["cb"] {
                (real, negativeImaginary) = (modulus * cos(phase * .pi / 180), -modulus * sin(phase * .pi / 180))
            } else {
                continue
            }
            let modulus = package["cb"] ?? (real * real + negativeImaginary * negativeImaginary).squareRoot()
            let negativePhase = atan2(negativeImaginary, real) * 180 / .pi
            let capacitance = 1 / (2 * .pi * frequency * negativeImaginary)
            let dc = package.values.first { $0.code == "ck" }?.value
            let fields = [
                SinkText.number(frequency, nan: "NaN"),
                Self.derived(negativePhase),
                dc.map { SinkText.number($0, timesTenToThe: 6, nan: "NaN") } ?? "",
                package["cb"].map { SinkText.number($0, nan: "NaN") } ?? Self.derived(modulus),
                realText ?? Self.derived(real),
                imaginaryText ?? Self.derived(negativeImaginary),
                Self.derived(capacitance),
            ]
            lines.append(fields.joined(separator: ","))
        }
    }

    /// A computed value; empty when it is not finite (a capacitance at Z'' = 0).
    private static func derived(_ value: Double) -> String { value.isFinite ? String(value) : "" }

    // MARK: Anything else

    private init(values packages: [PicoPackage], title: String, start: String, notes: String) {
        var slots: [PointLayout.Slot] = []
        for package in packages {
            for slot in PointLayout(package).slots where !slots.contains(slot) { slots.append(slot) }
        }
        let columns = ["package"] + slots.map(\.label)
        lines = Self.head(columns: columns.count, start: start, notes: notes)
        lines.append(SinkText.csv("\(title): values") + String(repeating: ",", count: columns.count - 1))
        lines.append("Date and time measurement:,\(start)" + String(repeating: ",", count: max(0, columns.count - 2)))
        lines.append(columns.map(SinkText.csv).joined(separator: ","))
        for package in packages {
            var fields = [String](repeating: "", count: columns.count)
            fields[0] = String(package.index)
            for (slot, value) in zip(PointLayout(package).slots, package.values) {
                if let index = slots.firstIndex(of: slot) {
                    fields[index + 1] = SinkText.number(value.value, nan: "NaN")
                }
            }
            lines.append(fields.joined(separator: ","))
        }
    }
}
