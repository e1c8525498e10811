import Foundation
import SpecTables

extension MethodSCRIPTGenerator {
    /// `VariableType` constants and a switch on the two ASCII bytes for name, quantity, unit and range kind.
    func variableTypes(_ table: CSVTable) throws -> GeneratedFile {
        var constants = ""
        var infoCases = ""
        var all: [String] = []
        var quantities: [String] = []
        var units: [String: [String]] = [:]
        var seen = Set<String>()
        for row in table.rows {
            let code = try row.required("code", in: table)
            let bytes = Array(code.utf8)
            guard bytes.count == 2, bytes.allSatisfy({ (0x61...0x7A).contains($0) }) else {
                throw SpecError(
                    file: table.path,
                    line: row.line,
                    message: "code '\(code)' is not two lowercase letters"
                )
            }
            guard seen.insert(code).inserted else {
                throw SpecError(file: table.path, line: row.line, message: "duplicate code '\(code)'")
            }
            let name = try Self.identifier(try row.required("swift_name", in: table), row: row, table: table)
            let quantity = try Self.identifier(try row.required("quantity", in: table), row: row, table: table)
            if !quantities.contains(quantity) { quantities.append(quantity) }
            let unit = row.optional("unit") ?? ""
            if !unit.isEmpty, !units[quantity, default: []].contains(unit) { units[quantity, default: []].append(unit) }
            let rangeKind = row.optional("range_kind") ?? "none"
            guard ["none", "current", "potential"].contains(rangeKind) else {
                throw SpecError(file: table.path, line: row.line, message: "unknown range_kind '\(rangeKind)'")
            }
            let raw = String(format: "0x%02X%02X", bytes[0], bytes[1])
            let title = try row.required("name", in: table)
            constants += "    /// `\(code)`: \(title) (\(unit.isEmpty ? "no unit" : unit)).\n"
            constants += "    public static let \(name) = VariableType(rawValue: \(raw))\n"
            infoCases +=
                "        case \(raw): VariableTypeInfo(code: \(SwiftLiteral.quoted(code)), name: \(SwiftLiteral.quoted(title)), "
            infoCases += "quantity: .\(quantity), unit: \(SwiftLiteral.quoted(unit)), rangeKind: .\(rangeKind))\n"
            all.append(".\(name)")
        }
        let body = """
            /// The physical quantity of a variable type, from the `quantity` column.
            public enum Quantity: String, Sendable, CaseIterable {
            \(quantities.map { quantity in
                let unit = units[quantity].map { " (\($0.joined(separator: ", ")))" } ?? " (no unit)"
                return "    /// `\(quantity)` in the `quantity` column\(unit).\n    case \(quantity)"
            }.joined(separator: "\n"))
            }

            extension VariableType {
            \(constants)
                /// Every variable type in the spec table, in table order.
                public static let known: [VariableType] = [
                    \(all.joined(separator: ", "))
                ]

                /// What the spec table says about this code; `nil` for a code it does not list.
                public var info: VariableTypeInfo? {
                    switch rawValue {
            \(infoCases)        default: nil
                    }
                }
            }

            """
        return GeneratedFile(
            path: "\(Self.folder)/VariableType+Generated.swift",
            specs: [table.path],
            body: body
        )
    }

    /// The hex digit table and the SI prefix tables: per byte the factor, and the exact divisor or
    /// multiplier the decoder scales a mantissa with (`m` = ÷ 1e3, `k` = × 1e3), so that a value is the
    /// correctly rounded double of the decimal the device sent.
    func valueEncoding(_ table: CSVTable) throws -> GeneratedFile {
        var hex = [String](repeating: "0xFF", count: 256)
        for (index, char) in "0123456789ABCDEF".utf8.enumerated() {
            hex[Int(char)] = String(format: "0x%02X", index)
            if index >= 10 { hex[Int(char) | 0x20] = String(format: "0x%02X", index) }
        }
        var factors = [String](repeating: "0", count: 256)
        var multipliers = [String](repeating: "0", count: 256)
        var divisors = [String](repeating: "0", count: 256)
        var integer = "0"
        var cases = ""
        var exponentCases = ""
        for row in table.rows {
            let ascii = try row.required("ascii", in: table)
            guard let byte = UInt8(ascii, radix: 16), byte >= 0x20, byte < 0x7F else {
                throw SpecError(file: table.path, line: row.line, message: "ascii '\(ascii)' is not a printable byte")
            }
            guard factors[Int(byte)] == "0" else {
                throw SpecError(file: table.path, line: row.line, message: "duplicate prefix \(ascii)")
            }
            let text = try row.required("exponent", in: table)
            // 10^k is exactly representable as a Double up to k = 22.
            guard let exponent = Int(text), (-22...22).contains(exponent) else {
                throw SpecError(file: table.path, line: row.line, message: "exponent '\(text)' is not in -22...22")
            }
            let power = exponent == 0 ? "1" : "1e\(abs(exponent))"
            factors[Int(byte)] = exponent == 0 ? "1" : "1e\(exponent)"
            if exponent >= 0 { multipliers[Int(byte)] = power }
            if exponent <= 0 { divisors[Int(byte)] = power }
            let name = try row.required("name", in: table)
            if name == "integer" { integer = String(format: "0x%02X", byte) }
            cases += "        case \(String(format: "0x%02X", byte)): \(SwiftLiteral.quoted(name))\n"
            exponentCases += "        case \(String(format: "0x%02X", byte)): \(exponent)\n"
        }
        let body = """
            /// Generated lookup tables for the value part of a variable (`<7 hex digits><prefix>`).
            public enum ValueEncoding {
                /// Hex digit value per byte (`0-9`, `A-F`, `a-f`); `0xFF` for any other byte.
                public static let hexDigit: [UInt8] = [
            \(Self.table(hex, indent: "        "))
                ]

                /// The factor of each SI prefix byte; `0` for a byte that is no prefix.
                public static let prefixFactor: [Double] = [
            \(Self.table(factors, indent: "        "))
                ]

                /// What a mantissa is divided by: 10^-k for a prefix of exponent k ≤ 0; `0` for a positive
                /// exponent (see `prefixMultiplier`) and for a byte that is no prefix. Every entry is exact,
                /// so one division of the exact integer mantissa rounds once: the value is the double
                /// nearest to the decimal the device sent.
                public static let prefixDivisor: [Double] = [
            \(Self.table(divisors, indent: "        "))
                ]

                /// What a mantissa is multiplied by when `prefixDivisor` is `0`: 10^k for a prefix of
                /// exponent k ≥ 0; `0` for a negative exponent and for a byte that is no prefix. Exact too.
                public static let prefixMultiplier: [Double] = [
            \(Self.table(multipliers, indent: "        "))
                ]

                /// The prefix byte that marks an integer value (factor 1).
                public static let integerPrefix: UInt8 = \(integer)

                /// The name of a prefix byte, `nil` for a byte that is no prefix.
                public static func prefixName(_ byte: UInt8) -> String? {
                    switch byte {
            \(cases)        default: nil
                    }
                }

                /// The power of ten a prefix byte stands for (`m` = -3), `nil` for a byte that is no prefix.
                public static func prefixExponent(_ byte: UInt8) -> Int? {
                    switch byte {
            \(exponentCases)        default: nil
                    }
                }
            }

            """
        return GeneratedFile(path: "\(Self.folder)/ValueEncoding+Generated.swift", specs: [table.path], body: body)
    }
}
