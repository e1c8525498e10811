import Foundation
import SpecTables

/// `Specs/ble/uuids.csv` → named `BluetoothUUID` constants and a name lookup. A 16-bit UUID the SIG
/// assigns must carry the SIG's name (`assigned-uuids.csv`), so every command prints the same one.
struct BLEUUIDGenerator {
    func generate(root: URL) throws -> GeneratedFile {
        let csv = try CSVTable(root: root, path: "Specs/ble/uuids.csv")
        let assigned = try CSVTable(root: root, path: BLEAssignedNumbersGenerator.uuidTable)
        let sigNames = Dictionary(
            assigned.rows.compactMap { row in row.optional("uuid").map { ($0, row.optional("name") ?? "") } },
            uniquingKeysWith: { first, _ in first }
        )
        var out = "extension BluetoothUUID {\n"
        var names: [String] = []
        for row in csv.rows {
            let text = try row.required("uuid", in: csv)
            let name = try row.required("name", in: csv)
            let constant = try row.required("constant", in: csv)
            let hex = text.filter { $0 != "-" }
            if let sigName = sigNames[text.uppercased()], sigName != name {
                throw SpecError(
                    file: csv.path,
                    line: row.line,
                    message: "\(text) is '\(sigName)' in \(assigned.path); one name for one UUID"
                )
            }
            let expression: String
            switch hex.count {
            case 4 where UInt16(hex, radix: 16) != nil: expression = "BluetoothUUID(0x\(hex.uppercased()))"
            case 32 where text.count == 36:
                guard let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else {
                    fallthrough
                }
                expression = String(format: "BluetoothUUID(high: 0x%016llX, low: 0x%016llX)", high, low)
            default: throw SpecError(file: csv.path, line: row.line, message: "bad UUID '\(text)'")
            }
            out += "    /// \(name) (`\(text)`): \(try row.required("source", in: csv)).\n"
            out += "    public static let \(constant) = \(expression)\n"
            names.append("        (.\(constant), \"\(name)\"),")
        }
        out += "\n    /// Every UUID the table names, with its name, in table order.\n"
        out += "    public static let knownNames: [(uuid: BluetoothUUID, name: String)] = [\n"
        out += names.joined(separator: "\n") + "\n    ]\n}\n"
        return GeneratedFile(
            path: "\(BLEWireGenerator.folder)/BluetoothUUID+Generated.swift",
            specs: [csv.path],
            body: out
        )
    }
}
