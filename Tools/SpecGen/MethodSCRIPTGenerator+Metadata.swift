import Foundation
import SpecTables

extension MethodSCRIPTGenerator {
    /// Metadata types, status bits, device families and the range tables.
    func metadataTables(_ table: CSVTable) throws -> GeneratedFile {
        var typeCases = ""
        var statusConstants = ""
        var statusNames: [String] = []
        var families: [String] = []
        var rangeCases: [String: [(index: Int, scale: String, label: String)]] = [:]
        for row in table.rows {
            let kind = try row.required("table", in: table)
            let index = try Self.integer(try row.required("index", in: table), row: row, table: table)
            switch kind {
            case "type":
                let digits = try Self.integer(try row.required("digits", in: table), row: row, table: table)
                let name = try Self.identifier(try row.required("name", in: table), row: row, table: table)
                typeCases += "        case \(index): (.\(name), \(digits))\n"
            case "status":
                let name = try Self.identifier(try row.required("name", in: table), row: row, table: table)
                let label = try row.required("label", in: table)
                statusConstants +=
                    "    /// \(label)\n    public static let \(name) = PackageStatus(rawValue: 0x\(String(index, radix: 16)))\n"
                statusNames.append("(.\(name), \(SwiftLiteral.quoted(name)))")
            case "current", "potential":
                let family = try Self.identifier(try row.required("family", in: table), row: row, table: table)
                if !families.contains(family) { families.append(family) }
                guard (0...255).contains(index) else {
                    throw SpecError(file: table.path, line: row.line, message: "range index \(index) is not a byte")
                }
                let scale = try Self.double(try row.required("full_scale", in: table), row: row, table: table)
                let key = "\(family).\(kind)"
                if rangeCases[key, default: []].contains(where: { $0.index == index }) {
                    throw SpecError(file: table.path, line: row.line, message: "duplicate range \(key) \(index)")
                }
                rangeCases[key, default: []].append((index, scale, try row.required("label", in: table)))
            default:
                throw SpecError(file: table.path, line: row.line, message: "unknown table '\(kind)'")
            }
        }
        var rangeSwitch = ""
        for family in families {
            for kind in ["current", "potential"] {
                guard let entries = rangeCases["\(family).\(kind)"] else { continue }
                rangeSwitch += "        case (.\(family), .\(kind)):\n            switch index {\n"
                for entry in entries {
                    rangeSwitch +=
                        "            case \(entry.index): RangeInfo(fullScale: \(entry.scale), label: \(SwiftLiteral.quoted(entry.label)))\n"
                }
                rangeSwitch += "            default: nil\n            }\n"
            }
        }
        let body = """
            /// The device families whose range tables differ (from the `family` column).
            public enum DeviceFamily: String, Sendable, CaseIterable {
            \(families.map { "    /// `\($0)` in the `family` column: the ranges of that family.\n    case \($0)" }.joined(separator: "\n"))
            }

            extension PackageStatus {
            \(statusConstants)
                /// Every status bit with its name, in table order.
                public static let named: [(PackageStatus, String)] = [\(statusNames.joined(separator: ", "))]
            }

            extension MetadataType {
                /// The metadata type of a type digit and the number of hex digits of its payload.
                public static func lookup(_ digit: Int) -> (type: MetadataType, digits: Int)? {
                    switch digit {
            \(typeCases)        default: nil
                    }
                }
            }

            extension MeasurementRange {
                /// The range table entry for `index`: which table is used depends on the device family and
                /// on whether the variable is a current or a potential.
                public static func info(family: DeviceFamily, kind: RangeKind, index: UInt8) -> RangeInfo? {
                    switch (family, kind) {
            \(rangeSwitch)        default: nil
                    }
                }
            }

            """
        return GeneratedFile(path: "\(Self.folder)/Metadata+Generated.swift", specs: [table.path], body: body)
    }

    /// The device error table.
    func errorCodes(_ table: CSVTable) throws -> GeneratedFile {
        var cases = ""
        var all: [String] = []
        var seen = Set<Int>()
        for row in table.rows {
            let code = try row.required("code", in: table)
            guard code.count == 4, let value = Int(code, radix: 16), seen.insert(value).inserted else {
                throw SpecError(file: table.path, line: row.line, message: "code '\(code)' is not 4 new hex digits")
            }
            let category = try Self.identifier(try row.required("category", in: table), row: row, table: table)
            let message = try row.required("message", in: table)
            cases += "        case 0x\(code): (.\(category), \(SwiftLiteral.quoted(message)))\n"
            all.append("0x\(code)")
        }
        let body = """
            extension DeviceErrorCode {
                /// Every code in the spec table, ascending.
                public static let known: [DeviceErrorCode] = [
            \(Self.table(all.map { "DeviceErrorCode(rawValue: \($0))" }, indent: "        "))
                ]

                /// The category and message of this code; `nil` for a code the table does not list.
                public var entry: (category: DeviceErrorCategory, message: String)? {
                    switch rawValue {
            \(cases)        default: nil
                    }
                }
            }

            """
        return GeneratedFile(path: "\(Self.folder)/DeviceErrorCode+Generated.swift", specs: [table.path], body: body)
    }

    /// The reply line kinds and a first-byte table.
    func replyKinds(_ table: CSVTable) throws -> GeneratedFile {
        var kinds = [String](repeating: ".other", count: 256)
        var cases: [String] = []
        for row in table.rows {
            let first = try row.required("first", in: table)
            let kind = try Self.identifier(try row.required("kind", in: table), row: row, table: table)
            let byte: UInt8
            if first == "empty" {
                byte = 0x0A
            } else {
                guard first.utf8.count == 1, let only = first.utf8.first else {
                    throw SpecError(file: table.path, line: row.line, message: "first '\(first)' is not one character")
                }
                byte = only
            }
            kinds[Int(byte)] = ".\(kind)"
            let meaning = try row.required("meaning", in: table)
            cases.append("    /// `\(try row.required("pattern", in: table))`: \(meaning)\n    case \(kind)")
        }
        let body = """
            /// The kind of a reply line by its first character (the newline stands for the empty line).
            public enum ReplyLineKind: UInt8, Sendable, CaseIterable {
                /// Any other first character.
                case other
            \(cases.joined(separator: "\n"))

                /// The kind of a line starting with `byte` (pass `0x0A` for the empty line).
                @inline(__always)
                public static func of(firstByte byte: UInt8) -> ReplyLineKind { table[Int(byte)] }

                static let table: [ReplyLineKind] = [
            \(Self.table(kinds, indent: "        "))
                ]
            }

            """
        return GeneratedFile(path: "\(Self.folder)/ReplyLineKind+Generated.swift", specs: [table.path], body: body)
    }
}
