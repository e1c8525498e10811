import Foundation
import SpecTables

/// The field-type model shared by every Bluetooth table (`Specs/ble/*.csv`): one `name:type` entry per
/// wire field, in order. Types (documented in Specs/README.md "## ble"):
///
/// - `u8` `u16` `u24` `u32` `u64` `i8`: little-endian integers
/// - `addr`: a six-octet BD_ADDR; `uuid`: an ATT UUID (2 or 16 octets, the rest of the PDU)
/// - `bytes`: the rest of the PDU (less any fixed fields after it); `bytes[N]`: exactly N octets;
///   `bytes<u8>` / `bytes<u16>`: octets preceded by their count
/// - `[T]`: elements filling the rest of the PDU (`[T]+`: at least one); `[T]<u8>`: a count octet, then elements;
///   T is an integer type or a structure
/// - any other name: a `WireCodable` structure (from structs.csv or hand-written in BLEWire)
indirect enum BLEFieldType: Equatable {
    case integer(width: Int, signed: Bool)
    case address
    case uuid
    case rest
    case fixedBytes(Int)
    case prefixedBytes(lengthWidth: Int)
    case list(element: BLEFieldType, countWidth: Int?, nonEmpty: Bool)
    case structure(String)

    static func parse(_ text: String) -> BLEFieldType? {
        switch text {
        case "u8": return .integer(width: 1, signed: false)
        case "u16": return .integer(width: 2, signed: false)
        case "u24": return .integer(width: 3, signed: false)
        case "u32": return .integer(width: 4, signed: false)
        case "u64": return .integer(width: 8, signed: false)
        case "i8": return .integer(width: 1, signed: true)
        case "addr": return .address
        case "uuid": return .uuid
        case "bytes": return .rest
        case "bytes<u8>": return .prefixedBytes(lengthWidth: 1)
        case "bytes<u16>": return .prefixedBytes(lengthWidth: 2)
        default: break
        }
        if text.hasPrefix("bytes["), text.hasSuffix("]"), let count = Int(text.dropFirst(6).dropLast()) {
            return .fixedBytes(count)
        }
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            guard let element = parse(String(text[text.index(after: text.startIndex)..<close])) else { return nil }
            switch text[text.index(after: close)...] {
            case "": return .list(element: element, countWidth: nil, nonEmpty: false)
            case "+": return .list(element: element, countWidth: nil, nonEmpty: true)
            case "<u8>": return .list(element: element, countWidth: 1, nonEmpty: false)
            default: return nil
            }
        }
        guard let first = text.first, first.isUppercase, text.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            return nil
        }
        return .structure(text)
    }

    /// The Swift type of the property.
    var swiftType: String {
        switch self {
        case .integer(let width, let signed):
            signed ? "Int\(width * 8)" : "UInt\(width == 3 ? 32 : width * 8)"
        case .address: "BluetoothAddress"
        case .uuid: "BluetoothUUID"
        case .rest, .fixedBytes, .prefixedBytes: "[UInt8]"
        case .list(let element, _, _): "[\(element.swiftType)]"
        case .structure(let name): name
        }
    }

    /// Octets when every value has the same size, else nil.
    var fixedSize: Int? {
        switch self {
        case .integer(let width, _): width
        case .address: 6
        case .fixedBytes(let count): count
        default: nil
        }
    }

    /// The fewest octets, as a Swift expression (structures answer for themselves).
    var minimumExpression: String {
        switch self {
        case .integer, .address, .fixedBytes: "\(fixedSize!)"
        case .uuid: "2"
        case .rest: "0"
        case .prefixedBytes(let width): "\(width)"
        case .list(let element, let countWidth, let nonEmpty):
            countWidth.map { "\($0)" } ?? (nonEmpty ? element.minimumExpression : "0")
        case .structure(let name): "\(name).minimumLength"
        }
    }

    /// How the byte-layout comment shows the size.
    var layoutSize: String {
        switch self {
        case .integer, .address, .fixedBytes: "\(fixedSize!)"
        case .uuid: "2 or 16"
        case .rest: "0+"
        case .prefixedBytes(let width): "\(width) + n"
        case .list(let element, let countWidth, _):
            countWidth.map { "\($0) + n × \(element.swiftType)" } ?? "n × \(element.swiftType)"
        case .structure(let name): name
        }
    }

    /// Expression decoding one value from `reader`; `trailing` fixed octets follow the field.
    func decodeExpression(reader: String, trailing: Int) -> String {
        switch self {
        case .integer(let width, let signed):
            signed ? "try \(reader).readInt8()" : "try \(reader).readUInt\(width * 8)()"
        case .address: "try \(reader).readAddress()"
        case .uuid: "try BluetoothUUID(attParsing: &\(reader), trailing: \(trailing))"
        case .rest: "Array(try \(reader).readBytes(max(0, \(reader).remaining - \(trailing))))"
        case .fixedBytes(let count): "Array(try \(reader).readBytes(\(count)))"
        case .prefixedBytes(let width):
            "Array(try \(reader).readBytes(Int(try \(reader).readUInt\(width * 8)())))"
        case .list(let element, let countWidth, _):
            if countWidth != nil {
                "try \(reader).readCountedList { (r: inout ByteReader) throws(DecodeError) in \(element.decodeExpression(reader: "r", trailing: 0)) }"
            } else {
                "try \(reader).readList(trailing: \(trailing)) { (r: inout ByteReader) throws(DecodeError) in \(element.decodeExpression(reader: "r", trailing: 0)) }"
            }
        case .structure(let name): "try \(name)(parsing: &\(reader))"
        }
    }

    /// Statements appending `value` to `writer`.
    func encodeStatement(_ value: String) -> String {
        switch self {
        case .integer(let width, _):
            width == 3 ? "writer.writeLittleEndian(UInt64(\(value)), width: 3)" : "writer.write(\(value))"
        case .address: "writer.write(\(value))"
        case .uuid, .structure: "\(value).encode(into: &writer)"
        case .rest: "writer.write(contentsOf: \(value))"
        case .fixedBytes(let count): "writer.writeFixed(\(value), count: \(count))"
        case .prefixedBytes(let width):
            "writer.write(UInt\(width * 8)(truncatingIfNeeded: \(value).count)); writer.write(contentsOf: \(value))"
        case .list(let element, let countWidth, _):
            (countWidth != nil ? "writer.write(UInt8(truncatingIfNeeded: \(value).count)); " : "")
                + "for element in \(value) { \(element.encodeStatement("element")) }"
        }
    }
}

/// One `name:type` field of a table row.
struct BLEField {
    let name: String
    let type: BLEFieldType

    /// Parses `a:u8; b:bytes`; an empty text is no fields.
    static func parseList(_ text: String?, file: String, line: Int) throws -> [BLEField] {
        guard let text, !text.isEmpty else { return [] }
        let fields = try text.split(separator: ";").map { entry in
            let parts = entry.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let first = parts[0].first, first.isLowercase,
                let type = BLEFieldType.parse(parts[1])
            else { throw SpecError(file: file, line: line, message: "bad field '\(entry)' (want name:type)") }
            return BLEField(name: parts[0], type: type)
        }
        for (index, field) in fields.enumerated() where index < fields.count - 1 {
            let laterVariable = fields[(index + 1)...].contains { $0.type.fixedSize == nil }
            switch field.type {
            case .rest, .uuid, .list(_, nil, _):
                if laterVariable {
                    throw SpecError(
                        file: file,
                        line: line,
                        message: "'\(field.name)' fills the rest: only fixed-size fields may follow"
                    )
                }
            default: break
            }
        }
        return fields
    }
}
