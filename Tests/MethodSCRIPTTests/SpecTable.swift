import Foundation

/// Reads a spec CSV of the package (`Specs/…`) for tests that check generated tables against it.
struct SpecTable {
    let rows: [[String: String]]

    init(_ path: String, filePath: String = #filePath) throws {
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var header: [String]?
        var rows: [[String: String]] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = Self.fields(String(line))
            guard let names = header else {
                header = fields
                continue
            }
            rows.append(Dictionary(uniqueKeysWithValues: zip(names, fields)))
        }
        self.rows = rows
    }

    static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var previousQuote = false
        for char in line {
            if quoted {
                if char == "\"" {
                    quoted = false
                    previousQuote = true
                } else {
                    field.append(char)
                }
                continue
            }
            if char == "\"" {
                if previousQuote { field.append("\"") }
                quoted = true
            } else if char == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(char)
            }
            previousQuote = false
        }
        fields.append(field)
        return fields.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
