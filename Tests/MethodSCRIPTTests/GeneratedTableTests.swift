import Foundation
import MethodSCRIPT
import SpecTables
import Testing

/// The generated tables say exactly what the spec CSVs say.
@Suite struct GeneratedTableTests {
    @Test func variableTypesMatchTheSpec() throws {
        let table = try SpecTable("Specs/methodscript/variable-types.csv")
        #expect(table.rows.count == VariableType.known.count)
        #expect(table.rows.count >= 68)
        for (row, type) in zip(table.rows, VariableType.known) {
            let info = try #require(type.info)
            #expect(info.code == row["code"])
            #expect(type.code == row["code"])
            #expect(VariableType(code: row["code"] ?? "") == type)
            #expect(info.name == row["name"])
            #expect(info.unit == row["unit"])
            #expect(info.quantity.rawValue == row["quantity"])
            #expect(info.rangeKind == RangeKind(name: row["range_kind"] ?? ""))
        }
        #expect(VariableType(code: "zz")?.info == nil)
        #expect(VariableType(code: "Ba") == nil)
    }

    @Test func prefixAndHexTablesMatchTheSpec() throws {
        let table = try SpecTable("Specs/methodscript/si-prefixes.csv")
        var expected = [Double](repeating: 0, count: 256)
        for row in table.rows {
            let byte = try #require(UInt8(row["ascii"] ?? "", radix: 16))
            let exponent = try #require(Int(row["exponent"] ?? ""))
            expected[Int(byte)] = try #require(Double("1e\(exponent)"))
            #expect(ValueEncoding.prefixExponent(byte) == exponent)
            let power = try #require(Double("1e\(abs(exponent))"))
            #expect(ValueEncoding.prefixMultiplier[Int(byte)] == (exponent >= 0 ? power : 0))
            #expect(ValueEncoding.prefixDivisor[Int(byte)] == (exponent <= 0 ? power : 0))
            #expect(ValueEncoding.prefixName(byte) == row["name"])
            if row["name"] == "integer" { #expect(ValueEncoding.integerPrefix == byte) }
        }
        #expect(ValueEncoding.prefixFactor == expected)
        #expect(table.rows.count == 14)
        for byte in 0...255 {
            let scalar = UInt8(byte)
            let digit: UInt8? = UInt8(String(UnicodeScalar(scalar)), radix: 16)
            #expect(ValueEncoding.hexDigit[byte] == (digit ?? 0xFF))
        }
    }

    @Test func rangeStatusAndMetadataTablesMatchTheSpec() throws {
        let table = try SpecTable("Specs/methodscript/metadata.csv")
        var ranges = 0
        for row in table.rows {
            let text = row["index"] ?? ""
            let index = try #require(text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text))
            switch row["table"] {
            case "current", "potential":
                let family = try #require(DeviceFamily(rawValue: row["family"] ?? ""))
                let kind: RangeKind = row["table"] == "current" ? .current : .potential
                let info = try #require(MeasurementRange.info(family: family, kind: kind, index: UInt8(index)))
                #expect(info.label == row["label"])
                #expect(info.fullScale == Double(row["full_scale"] ?? ""))
                ranges += 1
            case "status":
                let bit = PackageStatus(rawValue: UInt8(index))
                #expect(PackageStatus.named.contains { $0.0 == bit && $0.1 == row["name"] })
            case "type":
                let entry = try #require(MetadataType.lookup(index))
                #expect("\(entry.type)" == row["name"])
                #expect(entry.digits == Int(row["digits"] ?? ""))
            default:
                Issue.record("unknown table \(row["table"] ?? "")")
            }
        }
        #expect(ranges >= 70)
        #expect(MeasurementRange.info(family: .pico, kind: .current, index: 12) == nil)
    }

    @Test func errorTableMatchesTheSpec() throws {
        let table = try SpecTable("Specs/methodscript/error-codes.csv")
        #expect(table.rows.count == DeviceErrorCode.known.count)
        #expect(table.rows.count > 300)
        for (row, code) in zip(table.rows, DeviceErrorCode.known) {
            #expect(code.hex == row["code"])
            #expect(code.entry?.message == row["message"])
            #expect(code.entry?.category.rawValue == row["category"])
        }
        #expect(DeviceErrorCode(rawValue: 0x7FFF).entry?.category == .fatal)
        #expect(DeviceErrorCode(rawValue: 0x000A).entry == nil)
    }

    @Test func replyKindsMatchTheSpec() throws {
        let table = try SpecTable("Specs/methodscript/replies.csv")
        var listed = Set<UInt8>()
        for row in table.rows {
            let first = row["first"] ?? ""
            let byte = first == "empty" ? UInt8(0x0A) : try #require(first.utf8.first)
            listed.insert(byte)
            #expect("\(ReplyLineKind.of(firstByte: byte))" == row["kind"])
        }
        for byte in 0...255 where !listed.contains(UInt8(byte)) {
            #expect(ReplyLineKind.of(firstByte: UInt8(byte)) == .other)
        }
    }
}

extension RangeKind {
    init?(name: String) {
        switch name {
        case "": self = .none
        case "current": self = .current
        case "potential": self = .potential
        default: return nil
        }
    }
}
