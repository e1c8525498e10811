import MethodSCRIPT

/// The columns of the per-point table for one shape of data package (`PointCSVSink`): `run`, `scan`,
/// `loop`, `package`, `host_time`, `device_time` when the package has a device time (`eb`), then one
/// column per value in package order, named with the script's name for it and its unit (`p [V]`,
/// `c [A]`; the two-letter code when the script's name is not known), and for a current its status
/// (`c status`) and range (`c range [A]`).
struct PointLayout: Equatable {
    /// One value's place: its name, type, and how many values of the same name and type come before
    /// it in the package (so that two unnamed `ba` values keep their order).
    struct Slot: Equatable {
        var name: String
        var variable: VariableType
        var occurrence: Int

        /// `c [A]`, or `c` for a unitless value.
        var label: String { variable.unit.isEmpty ? name : "\(name) [\(variable.unit)]" }

        /// Whether the slot has status and range columns after its value.
        var isCurrent: Bool { variable.info?.quantity == .current }

        /// Columns the slot takes.
        var width: Int { isCurrent ? 3 : 1 }
    }

    let slots: [Slot]
    let hasDeviceTime: Bool

    /// The layout of `package`'s values.
    init(_ package: PicoPackage) {
        var slots: [Slot] = []
        for value in package.values {
            let name = value.name ?? value.code
            let occurrence = slots.filter { $0.name == name && $0.variable == value.variable }.count
            slots.append(Slot(name: name, variable: value.variable, occurrence: occurrence))
        }
        self.slots = slots
        hasDeviceTime = package.deviceTime != nil
    }

    /// Columns before the values.
    private var leadingCount: Int { hasDeviceTime ? 6 : 5 }

    /// Every column.
    var columnCount: Int { slots.reduce(leadingCount) { $0 + $1.width } }

    /// The header line, newline included.
    var header: String {
        var names = ["run", "scan", "loop", "package", "host_time"]
        if hasDeviceTime { names.append("device_time") }
        for slot in slots {
            names.append(slot.label)
            if slot.isCurrent { names += ["\(slot.name) status", "\(slot.name) range [\(slot.variable.unit)]"] }
        }
        return names.map(SinkText.csv).joined(separator: ",") + "\n"
    }

    /// The first column of each slot.
    private var slotColumns: [Int] {
        var columns: [Int] = []
        var column = leadingCount
        for slot in slots {
            columns.append(column)
            column += slot.width
        }
        return columns
    }

    /// The column of each of `package`'s values under this layout, or `nil` when one of them has no
    /// column here (or the package has a device time and the layout has no column for it).
    func placement(of package: PicoPackage) -> [Int]? {
        if package.deviceTime != nil && !hasDeviceTime { return nil }
        let incoming = PointLayout(package)
        let columns = slotColumns
        if incoming.slots == slots { return columns }
        var placement: [Int] = []
        for slot in incoming.slots {
            guard let index = slots.firstIndex(of: slot) else { return nil }
            placement.append(columns[index])
        }
        return placement
    }

    /// One row (newline included): every column, empty where `package` has no value for it. Scan and
    /// loop count from 1 (a package outside any scan is in scan 1), the package index from 0.
    func row(_ package: PicoPackage, placement: [Int]) -> String {
        var fields = [String](repeating: "", count: columnCount)
        fields[0] = String(package.run)
        fields[1] = String(package.scanNumber)
        fields[2] = String(package.loop)
        fields[3] = String(package.index)
        fields[4] = SinkText.seconds(package.hostTime)
        if hasDeviceTime { fields[5] = package.deviceTime.map { SinkText.number($0, nan: "NaN") } ?? "" }
        for (value, column) in zip(package.values, placement) {
            fields[column] = SinkText.number(value.value, nan: "NaN")
            guard value.variable.info?.quantity == .current else { continue }
            fields[column + 1] = value.status.map { String($0.rawValue) } ?? ""
            let fullScale = value.range?.info(family: .pico, variable: value.variable)?.fullScale
            fields[column + 2] = fullScale.map { SinkText.number($0, nan: "NaN") } ?? ""
        }
        return fields.joined(separator: ",") + "\n"
    }
}
