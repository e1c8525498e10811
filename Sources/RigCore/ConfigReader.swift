import TOMLKit

/// Typed reads of TOML values that record a located problem instead of failing, so one pass reports
/// everything that is wrong.
struct ConfigReader {
    let file: String
    let locator: TOMLKeyLocator
    var problems: [ConfigProblem] = []

    init(file: String, locator: TOMLKeyLocator) {
        self.file = file
        self.locator = locator
    }

    /// The `name` of each `[[device]]` entry, once read, so messages say which device they concern.
    var entryNames: [Int: String] = [:]

    /// How a key is shown: `rig.name`, `device "pico-2".every`, `device[3].every` before a name is known.
    func label(_ table: String, _ index: Int?, _ key: String) -> String {
        let base =
            index.map { index in entryNames[index].map { "\(table) \"\($0)\"" } ?? "\(table)[\(index + 1)]" } ?? table
        return [base, key].filter { !$0.isEmpty }.joined(separator: ".")
    }

    mutating func problem(table: String, index: Int? = nil, key: String, _ message: String) {
        problems.append(
            ConfigProblem(
                file: file,
                line: locator.line(table: table, index: index ?? 0, key: key),
                key: label(table, index, key),
                message: message
            )
        )
    }

    mutating func table(_ parent: TOMLTable, _ key: String, required: Bool, parent name: String = "") -> TOMLTable? {
        let full = name.isEmpty ? key : "\(name).\(key)"
        guard let value = parent[key] else {
            if required { problem(table: name, key: key, "missing: add a [\(full)] table") }
            return nil
        }
        guard let table = value.table else {
            problem(table: name, key: key, "must be a table ([\(full)])")
            return nil
        }
        return table
    }

    mutating func string(
        _ table: TOMLTable,
        table name: String,
        index: Int? = nil,
        key: String,
        required: Bool = false,
        missing: String = "missing"
    ) -> String? {
        guard let value = table[key] else {
            if required { problem(table: name, index: index, key: key, missing) }
            return nil
        }
        guard let text = value.string else {
            problem(table: name, index: index, key: key, "must be a string (in quotes), not \(value.type)")
            return nil
        }
        return text
    }

    mutating func integer(_ table: TOMLTable, table name: String, index: Int?, key: String) -> Int? {
        guard let value = table[key] else { return nil }
        guard value.type == .int, let number = value.int else {
            problem(table: name, index: index, key: key, "must be an integer, not \(value.type)")
            return nil
        }
        return number
    }

    mutating func bool(_ table: TOMLTable, table name: String, index: Int?, key: String) -> Bool? {
        guard let value = table[key] else { return nil }
        guard value.type == .bool, let flag = value.bool else {
            problem(table: name, index: index, key: key, "must be true or false, not \(value.type)")
            return nil
        }
        return flag
    }

    mutating func strings(_ table: TOMLTable, table name: String, index: Int?, key: String) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            problem(table: name, index: index, key: key, "must be an array of strings ([\"08:00\", \"20:00\"])")
            return nil
        }
        var texts: [String] = []
        for position in 0..<array.count {
            guard let text = array[position].string else {
                problem(table: name, index: index, key: key, "entry \(position + 1) must be a string")
                return nil
            }
            texts.append(text)
        }
        return texts
    }

    mutating func duration(_ table: TOMLTable, table name: String, index: Int?, key: String) -> Double? {
        guard let text = string(table, table: name, index: index, key: key) else { return nil }
        guard let seconds = DurationText.seconds(text) else {
            problem(table: name, index: index, key: key, "\"\(text)\" is not a duration (500ms, 30s, 10m, 2h, 1h30m)")
            return nil
        }
        return seconds
    }

    mutating func unknownKeys(in table: TOMLTable, table name: String, index: Int? = nil, allowed: Set<String>) {
        for key in table.keys.sorted() where !allowed.contains(key) {
            let known = allowed.sorted().joined(separator: ", ")
            problem(table: name, index: index, key: key, "unknown key (known here: \(known))")
        }
    }
}
