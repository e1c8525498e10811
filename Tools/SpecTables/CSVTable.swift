import Foundation

/// A CSV spec table: a header row, then one record per line. Lines starting with `#` are comments.
/// Fields may be quoted (`"a, b"`, with `""` for a quote). Every error names the file and line.
public struct CSVTable: Sendable {
    public struct Row: Sendable {
        /// The 1-based line of the file the row is on.
        public let line: Int
        /// The row's fields by column name.
        public let fields: [String: String]

        /// The named field; a missing or empty field is an error that names the file and line.
        public func required(_ name: String, in table: CSVTable) throws -> String {
            guard let value = fields[name], !value.isEmpty else {
                throw SpecError(file: table.path, line: line, message: "missing value for column '\(name)'")
            }
            return value
        }

        /// The named field; nil when it is missing or empty.
        public func optional(_ name: String) -> String? {
            guard let value = fields[name], !value.isEmpty else { return nil }
            return value
        }
    }

    /// The path relative to the package root, as the generated headers name it.
    public let path: String
    /// The column names, from the header row.
    public let columns: [String]
    /// The records, in file order.
    public let rows: [Row]

    /// Reads `path`, relative to `root`; a malformed line throws a `SpecError` naming it.
    public init(root: URL, path: String) throws {
        self.path = path
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var columns: [String]?
        var rows: [Row] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = try CSVTable.split(String(line), file: path, line: index + 1)
            guard let header = columns else {
                columns = fields
                continue
            }
            guard fields.count == header.count else {
                throw SpecError(
                    file: path,
                    line: index + 1,
                    message: "expected \(header.count) fields, found \(fields.count)"
                )
            }
            rows.append(Row(line: index + 1, fields: Dictionary(uniqueKeysWithValues: zip(header, fields))))
        }
        guard let columns else { throw SpecError(file: path, line: 1, message: "no header row") }
        self.columns = columns
        self.rows = rows
    }

    /// The fields of one line, trimmed of spaces; a quoted field may hold commas and `""` quotes.
    public static func split(_ line: String, file: String, line number: Int) throws -> [String] {
        var fields: [String] = []
        var field = ""
        var quoted = false
        var iterator = line.makeIterator()
        var pending: Character? = nil
        while let char = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if char == "\"" {
                    let next = iterator.next()
                    if next == "\"" {
                        field.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    field.append(char)
                }
            } else if char == "\"" && field.isEmpty {
                quoted = true
            } else if char == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(char)
            }
        }
        if quoted { throw SpecError(file: file, line: number, message: "unterminated quoted field") }
        fields.append(field)
        return fields.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// A located problem in a spec table.
public struct SpecError: Error, CustomStringConvertible {
    /// The file, relative to the package root.
    public let file: String
    /// The 1-based line.
    public let line: Int
    /// What is wrong there.
    public let message: String

    /// A problem at `line` of `file`.
    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// `FILE:LINE: MESSAGE`.
    public var description: String { "\(file):\(line): \(message)" }
}
