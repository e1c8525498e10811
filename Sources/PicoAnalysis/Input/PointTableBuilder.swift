/// Builds a `PointTable` row by row from named values, as a recording receives them (a rig's journal, a
/// run's packages): a column per name and unit in the order they first appear, NaN where a row has no
/// value for a column.
public struct PointTableBuilder: Sendable {
    private var columns: [PointTable.Column] = []
    private var index: [String: Int] = [:]
    private var rows = 0

    /// An empty table.
    public init() {}

    /// Adds a row of `(name, unit, value)` cells.
    public mutating func add(_ cells: [(name: String, unit: String, value: Double)]) {
        for cell in cells {
            let key = cell.unit.isEmpty ? cell.name : "\(cell.name) [\(cell.unit)]"
            let column: Int
            if let known = index[key] {
                column = known
            } else {
                column = columns.count
                index[key] = column
                columns.append(
                    PointTable.Column(
                        name: cell.name,
                        unit: cell.unit,
                        values: [Double](repeating: .nan, count: rows)
                    )
                )
            }
            if columns[column].values.count == rows { columns[column].values.append(cell.value) }
        }
        rows += 1
        for column in columns.indices where columns[column].values.count < rows {
            columns[column].values.append(.nan)
        }
    }

    /// The table so far.
    public var table: PointTable { PointTable(columns: columns) }
}
