import Foundation
import SpecTables

/// Generates the MethodSCRIPT lookup tables in `Sources/MethodSCRIPT/Generated/` from `Specs/methodscript/`.
struct MethodSCRIPTGenerator: SpecGenerator {
    static let folder = "Sources/MethodSCRIPT/Generated"

    func generate(root: URL) throws -> [GeneratedFile] {
        let variables = try CSVTable(root: root, path: "Specs/methodscript/variable-types.csv")
        let prefixes = try CSVTable(root: root, path: "Specs/methodscript/si-prefixes.csv")
        let metadata = try CSVTable(root: root, path: "Specs/methodscript/metadata.csv")
        let errors = try CSVTable(root: root, path: "Specs/methodscript/error-codes.csv")
        let replies = try CSVTable(root: root, path: "Specs/methodscript/replies.csv")
        return [
            try variableTypes(variables),
            try valueEncoding(prefixes),
            try metadataTables(metadata),
            try errorCodes(errors),
            try replyKinds(replies),
        ]
    }
}

// MARK: Shared helpers

extension MethodSCRIPTGenerator {
    /// Parses `0x..` hex or decimal integers.
    static func integer(_ text: String, row: CSVTable.Row, table: CSVTable) throws -> Int {
        let value = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
        guard let value else {
            throw SpecError(file: table.path, line: row.line, message: "'\(text)' is not an integer")
        }
        return value
    }

    static func double(_ text: String, row: CSVTable.Row, table: CSVTable) throws -> String {
        guard Double(text) != nil, text.first?.isNumber == true else {
            throw SpecError(file: table.path, line: row.line, message: "'\(text)' is not a number")
        }
        return text
    }

    static func identifier(_ text: String, row: CSVTable.Row, table: CSVTable) throws -> String {
        let valid =
            text.first.map { $0.isLetter && $0.isASCII } == true
            && text.allSatisfy { ($0.isLetter || $0.isNumber) && $0.isASCII }
        guard valid else {
            throw SpecError(file: table.path, line: row.line, message: "'\(text)' is not a Swift identifier")
        }
        return text
    }

    /// A 256-entry array literal, 16 values a line.
    static func table(_ values: [String], indent: String) -> String {
        stride(from: 0, to: values.count, by: 16).map { start in
            indent + values[start..<min(start + 16, values.count)].joined(separator: ", ") + ","
        }.joined(separator: "\n")
    }
}
