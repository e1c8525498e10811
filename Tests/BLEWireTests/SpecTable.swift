import Foundation

/// Reads a spec table of `Specs/ble/` for comparison with the generated code: the header row names
/// the columns, `#` lines are comments; a field may be quoted (`"a, b"`, `""` for a quote).
struct SpecTable {
    let rows: [[String: String]]

    init(_ name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Specs/ble/\(name)"), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let header = Self.fields(lines[0])
        rows = lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, Self.fields($0))) }
    }

    static func fields(_ line: Substring) -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var previous: Character? = nil
        for char in line {
            switch char {
            case "\"" where quoted: quoted = false
            case "\"" where previous == "\"":
                field.append("\"")
                quoted = true
            case "\"": quoted = true
            case "," where !quoted:
                fields.append(field)
                field = ""
            default: field.append(char)
            }
            previous = char
        }
        return fields + [field]
    }

    /// `0x1B` or `1B` as a number.
    static func code(_ text: String?) -> UInt64? {
        guard let text else { return nil }
        return UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
    }
}
