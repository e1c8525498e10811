import MethodSCRIPT
public import PicoAnalysis
public import PicoLink

/// A run's points as a table, filled package by package: `run` and `scan`, then a column per value, named by
/// the script (or the variable's code) with the variable's unit, as the per-point files name them; a
/// package without a value for a column has NaN there. The journal fills it from its rows
/// (`column(code:name:)`, `package(_:scan:)`, `set(_:_:)`), the rig and `connect` from the packages they
/// receive (`add(_:)`, which finds each value's column once per position). The cells are kept row after
/// row in one array, so that a package costs a few appends; `table` turns them into columns.
public struct PointColumns: Sendable {
    private var names = ["run", "scan"]
    private var units = ["", ""]
    private var columnOf: [String: Int] = [:]
    /// The cells, `names.count` to a row.
    private var cells: [Double] = []
    /// Which cells of the current row have their value (the first value a row gets in a column is kept).
    private var filled: [Bool] = [true, true]
    private let deviceRun: Double
    private var currentPackage = Int.min
    /// The column each position of the last package went to, with what was there.
    private var positions: [(variable: VariableType, name: String?, column: Int)] = []
    /// Whether the positions fill every column after `scan`, in order (`add(_:)` appends such a row as it is).
    private var inOrder = false
    /// Rows (packages) so far.
    public private(set) var rows = 0

    /// An empty table of run `deviceRun`.
    public init(deviceRun: Int) { self.deviceRun = Double(deviceRun) }

    /// The column of values of variable `code` named `name` (the code when nil), made when new.
    public mutating func column(code: String, name: String?) -> Int {
        column(name: name ?? code, unit: VariableType(code: code)?.unit ?? "")
    }

    /// The row of package `index` (a new one when the package is not the current one).
    public mutating func package(_ index: Int, scan: Int) {
        guard index != currentPackage else { return }
        currentPackage = index
        rows += 1
        cells.append(deviceRun)
        cells.append(Double(scan))
        for column in 2..<names.count {
            cells.append(.nan)
            filled[column] = false
        }
    }

    /// `value` in `column` of the current row (the first value a row gets there is kept).
    public mutating func set(_ column: Int, _ value: Double) {
        guard rows > 0, !filled[column] else { return }
        filled[column] = true
        cells[(rows - 1) * names.count + column] = value
    }

    /// Adds `package` as a row.
    public mutating func add(_ package: PicoPackage) {
        // The common case: a package like the one before, whose values fill the columns after `scan` in
        // their order; its row is appended as it is.
        if inOrder, package.index != currentPackage, sameLayout(package.values) {
            currentPackage = package.index
            rows += 1
            cells.append(deviceRun)
            cells.append(Double(package.scanNumber))
            // Each value read where it is (a value copied out would retain its name).
            for position in package.values.indices { cells.append(package.values[position].value) }
            return
        }
        self.package(package.index, scan: package.scanNumber)
        for (position, value) in package.values.enumerated() {
            if position < positions.count, positions[position].variable == value.variable,
                positions[position].name == value.name
            {
                set(positions[position].column, value.value)
                continue
            }
            let column = column(name: value.name ?? value.code, unit: value.unit)
            let known = (value.variable, value.name, column)
            if position < positions.count { positions[position] = known } else { positions.append(known) }
            set(column, value.value)
        }
        if positions.count > package.values.count { positions.removeLast(positions.count - package.values.count) }
        inOrder =
            names.count == positions.count + 2 && positions.indices.allSatisfy { positions[$0].column == $0 + 2 }
    }

    /// Whether `values` are of the variables and names of the last package's, position by position.
    private func sameLayout(_ values: [PicoValue]) -> Bool {
        guard values.count == positions.count else { return false }
        for position in values.indices
        where values[position].variable != positions[position].variable
            || values[position].name != positions[position].name
        {
            return false
        }
        return true
    }

    /// The table.
    public var table: PointTable {
        let width = names.count
        return PointTable(
            columns: (0..<width).map { column in
                let values = cells.withUnsafeBufferPointer { cells in
                    [Double](unsafeUninitializedCapacity: rows) { values, count in
                        for row in 0..<rows { values.initializeElement(at: row, to: cells[row * width + column]) }
                        count = rows
                    }
                }
                return PointTable.Column(name: names[column], unit: units[column], values: values)
            }
        )
    }

    /// The column named `name` with `unit`, made when new: the rows so far get NaN in it.
    private mutating func column(name: String, unit: String) -> Int {
        let key = unit.isEmpty ? name : name + " [" + unit + "]"
        if let known = columnOf[key] { return known }
        let column = names.count
        columnOf[key] = column
        let width = names.count
        names.append(name)
        units.append(unit)
        filled.append(false)
        if rows > 0 {
            var widened = [Double]()
            widened.reserveCapacity(rows * (width + 1))
            for row in 0..<rows {
                widened.append(contentsOf: cells[(row * width)..<((row + 1) * width)])
                widened.append(.nan)
            }
            cells = widened
        }
        return column
    }
}
