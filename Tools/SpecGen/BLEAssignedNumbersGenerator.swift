import Foundation
import SpecTables

/// `Specs/ble/assigned-uuids.csv`, `company-ids.csv` and `appearance.csv` → sorted lookup tables
/// (`AssignedNumberTables`), each a column of numbers beside a column of names, searched by
/// `AssignedNumbers`. Every table must be sorted by number without repeats.
struct BLEAssignedNumbersGenerator {
    static let uuidTable = "Specs/ble/assigned-uuids.csv"
    static let companyTable = "Specs/ble/company-ids.csv"
    static let appearanceTable = "Specs/ble/appearance.csv"
    static let kinds = ["declaration", "descriptor", "service", "characteristic", "member", "sdo"]

    func generate(root: URL) throws -> GeneratedFile {
        let uuids = try CSVTable(root: root, path: Self.uuidTable)
        let companies = try CSVTable(root: root, path: Self.companyTable)
        let appearance = try CSVTable(root: root, path: Self.appearanceTable)

        var out = "/// The Bluetooth SIG's assigned numbers, sorted by number for `AssignedNumbers`' binary search.\n"
        out += "enum AssignedNumberTables {\n"
        let uuidCodes = try sortedCodes(uuids, column: "uuid")
        let kinds = try uuids.rows.map { row in
            let kind = try row.required("kind", in: uuids)
            guard Self.kinds.contains(kind) else {
                throw SpecError(file: uuids.path, line: row.line, message: "unknown kind '\(kind)'")
            }
            return ".\(kind)"
        }
        out += column("uuids", type: "UInt16", uuidCodes.map(hex))
        out += column("uuidKinds", type: "AssignedUUIDKind", kinds)
        out += column("uuidNames", type: "String", try names(uuids, column: "name"))
        out += column("companyIDs", type: "UInt16", try sortedCodes(companies, column: "id").map(hex))
        out += column("companyNames", type: "String", try names(companies, column: "name"))
        out += column("appearances", type: "UInt16", try sortedCodes(appearance, column: "value").map(hex))
        out += column("appearanceCategories", type: "String", try names(appearance, column: "category"))
        out += column(
            "appearanceSubcategories",
            type: "String",
            appearance.rows.map { SwiftLiteral.quoted($0.optional("subcategory") ?? "") }
        )
        out += "}\n"
        return GeneratedFile(
            path: "\(BLEWireGenerator.folder)/AssignedNumberTables+Generated.swift",
            specs: [uuids.path, companies.path, appearance.path],
            body: out
        )
    }

    /// The 16-bit numbers of a table's rows, checked to rise strictly.
    private func sortedCodes(_ table: CSVTable, column: String) throws -> [UInt16] {
        var codes: [UInt16] = []
        for row in table.rows {
            let text = try row.required(column, in: table)
            guard text.count == 4, let code = UInt16(text, radix: 16) else {
                throw SpecError(file: table.path, line: row.line, message: "'\(text)' is not four hex digits")
            }
            if let last = codes.last, code <= last {
                throw SpecError(file: table.path, line: row.line, message: "\(text) is out of order or repeated")
            }
            codes.append(code)
        }
        return codes
    }

    private func names(_ table: CSVTable, column: String) throws -> [String] {
        try table.rows.map { SwiftLiteral.quoted(try $0.required(column, in: table)) }
    }

    private func hex(_ code: UInt16) -> String { String(format: "0x%04X", code) }

    /// `static let NAME: [TYPE] = [...]`, numbers twelve to a line, anything else one to a line.
    private func column(_ name: String, type: String, _ items: [String]) -> String {
        let perLine = type == "UInt16" ? 12 : 1
        var out = "    static let \(name): [\(type)] = [\n"
        for start in stride(from: 0, to: items.count, by: perLine) {
            out += "        " + items[start..<min(start + perLine, items.count)].joined(separator: ", ") + ",\n"
        }
        return out + "    ]\n"
    }
}
