public import PicoAnalysis
public import PicoLink

extension PointTableBuilder {
    /// Adds `package` as a row: `run` and `scan`, then each value under its script name (or its
    /// variable code) and unit, as the per-point files name them.
    public mutating func add(_ package: PicoPackage) {
        var cells: [(name: String, unit: String, value: Double)] = [
            ("run", "", Double(package.run)), ("scan", "", Double(package.scanNumber)),
        ]
        for value in package.values { cells.append((value.name ?? value.code, value.unit, value.value)) }
        add(cells)
    }
}
