/// Finds the line of a key in a TOML document, for located messages (TOMLKit reports positions of
/// syntax errors only). It reads table headers (`[rig]`, `[[device]]`, counting array entries) and
/// `key = …` lines at the start of a line, which is how a rig config is written; a key it cannot place
/// gets its table's header line.
struct TOMLKeyLocator {
    /// (table, entry index for `[[…]]` tables, key) → line; key "" is the header.
    private var lines: [Place: Int] = [:]

    struct Place: Hashable {
        var table: String
        var index: Int
        var key: String
    }

    init(text: String) {
        var table = ""
        var index = 0
        var arrayCounts: [String: Int] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[[") {
                table = Self.name(line.dropFirst(2).prefix { $0 != "]" })
                index = arrayCounts[table, default: 0]
                arrayCounts[table] = index + 1
                lines[Place(table: table, index: index, key: ""), default: number + 1] = number + 1
            } else if line.hasPrefix("[") {
                table = Self.name(line.dropFirst().prefix { $0 != "]" })
                // `[device.method]` after `[[device]]` belongs to that entry of the array.
                let parent = String(table.prefix { $0 != "." })
                index = table.contains(".") ? max(0, arrayCounts[parent, default: 0] - 1) : 0
                lines[Place(table: table, index: index, key: ""), default: number + 1] = number + 1
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = Self.name(line[..<equals])
                lines[Place(table: table, index: index, key: key), default: number + 1] = number + 1
            }
        }
    }

    /// The line of `key` in `table` (entry `index` of an array of tables), else the table's header.
    func line(table: String, index: Int = 0, key: String = "") -> Int? {
        lines[Place(table: table, index: index, key: key)] ?? lines[Place(table: table, index: index, key: "")]
    }

    private static func name(_ text: Substring) -> String {
        String(text.trimmingWhitespace().filter { $0 != "\"" && $0 != "'" })
    }
}
