/// A run's points as a table of numeric columns, read from the per-point CSV that hcipico writes
/// (`connect --csv`, `export`: `# key: value` lines, then a header of names with units in brackets, `p [V]`)
/// or from the CSV of PalmSens' C example (`Index,Potential,Current,Frequency,Zreal,Zimag,…`).
public struct PointTable: Sendable {
    /// One column: its name, its unit (`V`, `A`, `Hz`, `Ω`; empty when none) and a value per row
    /// (NaN where a cell is not a number).
    public struct Column: Sendable, Hashable {
        /// Its name without the unit, e.g. `p`.
        public let name: String
        /// Its unit.
        public let unit: String
        /// Its values.
        public var values: [Double]

        /// A column.
        public init(name: String, unit: String, values: [Double]) {
            self.name = name
            self.unit = unit
            self.values = values
        }
    }

    /// Why a table was refused, at its 1-based line.
    public struct ReadError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line.
        public let line: Int
        /// What is wrong.
        public let message: String

        /// `line 4: …`.
        public var description: String { "line \(line): \(message)" }
    }

    /// The `# key: value` lines before the header.
    public let metadata: [String: String]
    /// The columns, in the header's order.
    public let columns: [Column]

    /// PalmSens' column names and the units they carry.
    static let palmSensUnits = ["Potential": "V", "Current": "A", "Frequency": "Hz", "Zreal": "Ω", "Zimag": "Ω"]

    /// A table of `columns` (of equal length).
    public init(metadata: [String: String] = [:], columns: [Column]) {
        self.metadata = metadata
        self.columns = columns
    }

    /// Reads `text`.
    public init(csv text: String) throws(ReadError) {
        var metadata: [String: String] = [:]
        var header: [(name: String, unit: String)]?
        var values: [[Double]] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw[...]
            if line.isEmpty { continue }
            if line.hasPrefix("#") {
                let body = line.dropFirst().drop { $0 == " " }
                if let colon = body.firstIndex(of: ":") {
                    metadata[String(body[..<colon])] = String(body[body.index(after: colon)...].drop { $0 == " " })
                }
                continue
            }
            let cells = line.split(separator: ",", omittingEmptySubsequences: false)
            guard let names = header else {
                header = cells.map { Self.nameAndUnit(String($0)) }
                values = [[Double]](repeating: [], count: cells.count)
                continue
            }
            guard cells.count == names.count else {
                throw ReadError(line: lineNumber, message: "\(cells.count) cells where the header has \(names.count)")
            }
            for (index, cell) in cells.enumerated() { values[index].append(Self.number(cell)) }
        }
        guard let names = header else { throw ReadError(line: max(1, lineNumber), message: "no header line") }
        self.metadata = metadata
        columns = zip(names, values).map { Column(name: $0.name, unit: $0.unit, values: $1) }
    }

    /// The number of rows.
    public var rowCount: Int { columns.first?.values.count ?? 0 }

    /// The column named `name`, if there is one.
    public func column(_ name: String) -> Column? { columns.first { $0.name == name } }

    /// The columns in `unit` that have at least one finite value.
    public func columns(in unit: String) -> [Column] {
        columns.filter { $0.unit == unit && $0.values.contains { $0.isFinite } }
    }

    /// `p [V]` → (`p`, `V`); a PalmSens name → its unit; anything else has none.
    static func nameAndUnit(_ cell: String) -> (name: String, unit: String) {
        let text = cell.trimmingSpaces
        if text.hasSuffix("]"), let open = text.lastIndex(of: "[") {
            let name = String(text[..<open]).trimmingSpaces
            return (name, String(text[text.index(after: open)..<text.index(before: text.endIndex)]))
        }
        return (text, palmSensUnits[text] ?? "")
    }

    /// A cell as a number: NaN when it is not one (PalmSens writes infinity as `1.#INF00`).
    static func number(_ cell: Substring) -> Double {
        let text = cell.trimmingSpaces
        if let value = Double(text) { return value }
        if text.contains("#INF") { return text.hasPrefix("-") ? -.infinity : .infinity }
        return .nan
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
