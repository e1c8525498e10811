import MethodSCRIPT
import PicoAnalysis

/// A run's points as columns, filled package by package from the journal: `run` and `scan`, then a
/// column per value name and unit (a package without a value for a column gets NaN there).
struct PointColumns {
    private var names = ["run", "scan"]
    private var units = ["", ""]
    private var values: [[Double]] = [[], []]
    private var columnOf: [String: Int] = [:]
    private var rows = 0
    private var currentPackage = Int.min
    private let deviceRun: Double

    init(deviceRun: Double) { self.deviceRun = deviceRun }

    /// The column of values of variable `code` named `name` (the code when nil), made when new.
    mutating func column(code: String, name: String?) -> Int {
        let unit = VariableType(code: code)?.unit ?? ""
        let name = name ?? code
        let key = unit.isEmpty ? name : name + " [" + unit + "]"
        if let known = columnOf[key] { return known }
        let column = names.count
        columnOf[key] = column
        names.append(name)
        units.append(unit)
        values.append([Double](repeating: .nan, count: rows))
        return column
    }

    /// The row of package `index` (a new one when the package is not the current one).
    mutating func package(_ index: Int, scan: Int) {
        guard index != currentPackage else { return }
        if rows > 0 { fillRow() }
        currentPackage = index
        rows += 1
        values[0].append(deviceRun)
        values[1].append(Double(scan))
    }

    /// `value` in `column` of the current row (the first value a row gets there is kept).
    mutating func set(_ column: Int, _ value: Double) {
        if values[column].count < rows { values[column].append(value) }
    }

    /// The table.
    mutating func finished() -> PointTable {
        if rows > 0 { fillRow() }
        return PointTable(
            columns: names.indices.map { PointTable.Column(name: names[$0], unit: units[$0], values: values[$0]) }
        )
    }

    private mutating func fillRow() {
        for column in values.indices where values[column].count < rows { values[column].append(.nan) }
    }
}
