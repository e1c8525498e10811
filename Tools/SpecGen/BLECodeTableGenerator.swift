import Foundation
import SpecTables

/// Code tables (`att-errors.csv`, `hci-errors.csv`, `smp-errors.csv`, `ad-types.csv`) → an open `RawRepresentable` struct
/// per table: a named constant per row, the spec name of each, and every other raw value still representable
/// (a peer may send codes a later spec defines).
struct BLECodeTableGenerator {
    struct Table {
        let path: String
        let type: String
        let doc: String
        /// Conform to `WireCodable` as one octet.
        let wire: Bool
    }

    static let tables = [
        Table(
            path: "Specs/ble/att-errors.csv",
            type: "ATTErrorCode",
            doc: "An ATT error code (Core 5.4 Vol 3 Part F §3.4.1.1 Table 3.4; CSS v11 Part B §1.2).",
            wire: true
        ),
        Table(
            path: "Specs/ble/hci-errors.csv",
            type: "HCIStatus",
            doc: "An HCI error code, as the Status and Reason parameters carry it (Core 5.4 Vol 1 Part F §1.3).",
            wire: true
        ),
        Table(
            path: "Specs/ble/smp-errors.csv",
            type: "SMPReason",
            doc: "A Pairing Failed reason (Core 5.4 Vol 3 Part H §3.5.5 Table 3.7).",
            wire: true
        ),
        Table(
            path: "Specs/ble/ad-types.csv",
            type: "AdvertisingDataType",
            doc: "An advertising data type (Assigned Numbers §2.3; formats in CSS v11 Part A §1).",
            wire: false
        ),
    ]

    func generate(root: URL) throws -> [GeneratedFile] {
        try Self.tables.map { table in
            let csv = try CSVTable(root: root, path: table.path)
            var rows: [(code: UInt64, name: String, caseName: String)] = []
            var ranges: [(low: UInt64, high: UInt64, name: String)] = []
            var widths: [(code: UInt64, width: String)] = []
            for row in csv.rows {
                let text = try row.required("code", in: csv)
                if let dash = text.firstIndex(of: "-") {
                    // A range row names every code in it that no single row names (e.g. Application Error).
                    let low = try String(text[..<dash]).parseCode(file: csv.path, line: row.line)
                    let high = try String(text[text.index(after: dash)...]).parseCode(file: csv.path, line: row.line)
                    guard low <= high, high <= 0xFF else {
                        throw SpecError(file: csv.path, line: row.line, message: "bad code range '\(text)'")
                    }
                    ranges.append((low, high, try row.required("name", in: csv)))
                    continue
                }
                let code = try text.parseCode(file: csv.path, line: row.line)
                guard code <= 0xFF, !rows.contains(where: { $0.code == code }) else {
                    throw SpecError(file: csv.path, line: row.line, message: "code out of range or repeated")
                }
                rows.append((code, try row.required("name", in: csv), try row.required("case", in: csv)))
                if let width = row.optional("uuid_width") {
                    guard ["2", "4", "16"].contains(width) else {
                        throw SpecError(file: csv.path, line: row.line, message: "uuid_width must be 2, 4 or 16")
                    }
                    widths.append((code, width))
                }
            }
            return GeneratedFile(
                path: "\(BLEWireGenerator.folder)/\(table.type)+Generated.swift",
                specs: [csv.path],
                body: emit(table, rows: rows, ranges: ranges) + emitWidths(table, widths)
            )
        }
    }

    /// The octets per UUID of the types whose data holds UUIDs (the `uuid_width` column).
    private func emitWidths(_ table: Table, _ widths: [(code: UInt64, width: String)]) -> String {
        guard !widths.isEmpty else { return "" }
        var out = "\nextension \(table.type) {\n"
        out +=
            "    /// Octets per UUID for the types whose data holds UUIDs (service and solicitation lists, service data), else nil.\n"
        out += "    public var uuidWidth: Int? {\n        switch rawValue {\n"
        for entry in widths { out += String(format: "        case 0x%02X: \(entry.width)\n", entry.code) }
        out += "        default: nil\n        }\n    }\n}\n"
        return out
    }

    private func emit(
        _ table: Table,
        rows: [(code: UInt64, name: String, caseName: String)],
        ranges: [(low: UInt64, high: UInt64, name: String)]
    ) -> String {
        let type = table.type
        var out = "/// \(table.doc)\n"
        out += "public struct \(type): RawRepresentable, Sendable, Hashable, CustomStringConvertible {\n"
        out += "    public let rawValue: UInt8\n\n"
        out += "    @inlinable\n    public init(rawValue: UInt8) { self.rawValue = rawValue }\n\n"
        for row in rows {
            out += "    /// \(row.name)\n"
            out += String(format: "    public static let \(row.caseName) = \(type)(rawValue: 0x%02X)\n", row.code)
        }
        out += "\n    /// Every named code, in table order.\n"
        out += "    public static let allNamed: [\(type)] = [\n"
        out += rows.map { "        .\($0.caseName)," }.joined(separator: "\n") + "\n    ]\n\n"
        out += "    /// The spec's name for the code (a range's name for a code in a named range), or nil for a code\n"
        out += "    /// the table does not name.\n"
        out += "    public var name: String? {\n        switch rawValue {\n"
        for row in rows { out += String(format: "        case 0x%02X: \"\(row.name)\"\n", row.code) }
        for range in ranges {
            out += String(format: "        case 0x%02X...0x%02X: \"\(range.name)\"\n", range.low, range.high)
        }
        out += "        default: nil\n        }\n    }\n\n"
        out +=
            "    /// The name and code, e.g. `Invalid Handle (0x01)`, or `0xNN` for a code the table does not name.\n"
        out += "    public var description: String {\n"
        out += "        let hex = (rawValue < 0x10 ? \"0x0\" : \"0x\") + String(rawValue, radix: 16, uppercase: true)\n"
        out += "        return name.map { \"\\($0) (\\(hex))\" } ?? hex\n    }\n}\n"
        if table.wire {
            out += "\nextension \(type): WireCodable {\n"
            out += "    public static var minimumLength: Int { 1 }\n\n"
            out += "    @inlinable\n    public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
            out += "        self.init(rawValue: try reader.readUInt8())\n    }\n\n"
            out += "    public func encode(into writer: inout ByteWriter) { writer.write(rawValue) }\n}\n"
        }
        return out
    }
}
