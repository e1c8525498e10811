import Foundation

/// One wire structure to generate: a PDU, command, event, signaling command or list element, with the
/// header its layer puts in front of the fields.
struct BLEShape {
    enum Header {
        case none
        case att(opcode: UInt8)
        case hciCommand(opcode: UInt16)
        case hciEvent(code: UInt8)
        case leMeta(subevent: UInt8)
        case signaling(code: UInt8)
        /// A Security Manager command: its code octet, then exactly its fields.
        case smp(code: UInt8)
        /// Return parameters of a command (inside Command Complete): no header of their own.
        case returnParameters
    }

    let type: String
    let specName: String
    /// Where the spec defines it, e.g. `Vol 3 Part F §3.4.7.1`.
    let section: String
    let header: Header
    let fields: [BLEField]
    /// Protocols besides `WireCodable`, e.g. `HCICommandPacket`.
    var conformances = ["WireCodable"]
    /// Extra declarations inside the struct (after the constants).
    var extraMembers = ""

    /// The header octets and what the layout comment calls them.
    var headerLayout: [(String, String)] {
        switch header {
        case .none, .returnParameters: []
        case .att(let opcode): [(String(format: "opcode 0x%02X", opcode), "1")]
        case .smp(let code): [(String(format: "code 0x%02X", code), "1")]
        case .hciCommand(let opcode): [(String(format: "opcode 0x%04X", opcode), "2"), ("parameter length", "1")]
        case .hciEvent(let code): [(String(format: "event 0x%02X", code), "1"), ("parameter length", "1")]
        case .leMeta(let sub):
            [("event 0x3E", "1"), ("parameter length", "1"), (String(format: "subevent 0x%02X", sub), "1")]
        case .signaling(let code):
            [(String(format: "code 0x%02X", code), "1"), ("identifier", "1"), ("length", "2")]
        }
    }

    var isLEMeta: Bool {
        if case .leMeta = header { return true }
        return false
    }

    var headerLength: Int { headerLayout.reduce(0) { $0 + Int($1.1)! } }

    /// The properties: the signaling identifier, then the fields.
    var properties: [(name: String, type: String)] {
        var result: [(name: String, type: String)] = []
        if case .signaling = header { result.append(("identifier", "UInt8")) }
        return result + fields.map { ($0.name, $0.type.swiftType) }
    }

    func emit() -> String {
        var out = "/// \(specName): Core 5.4 \(section).\n///\n"
        let layout = headerLayout.map { "\($0.0) (\($0.1))" } + fields.map { "\($0.name) (\($0.type.layoutSize))" }
        out += "///     | " + (layout.isEmpty ? "(no octets)" : layout.joined(separator: " | ")) + " |\n"
        out += "public struct \(type.split(separator: ".").last!): \(conformances.joined(separator: ", ")) {\n"
        switch header {
        case .none, .returnParameters: break
        case .att(let opcode): out += String(format: "    public static let opcode: UInt8 = 0x%02X\n", opcode)
        case .hciCommand(let opcode): out += String(format: "    public static let opcode: UInt16 = 0x%04X\n", opcode)
        case .hciEvent(let code): out += String(format: "    public static let eventCode: UInt8 = 0x%02X\n", code)
        case .leMeta(let sub):
            out += "    public static let eventCode: UInt8 = 0x3E\n"
            out += String(format: "    public static let subeventCode: UInt8 = 0x%02X\n", sub)
        case .signaling(let code), .smp(let code):
            out += String(format: "    public static let code: UInt8 = 0x%02X\n", code)
        }
        out += extraMembers
        let minimum = (["\(headerLength)"] + fields.map(\.type.minimumExpression)).filter { $0 != "0" }
        out +=
            "    public static var minimumLength: Int { \(minimum.isEmpty ? "0" : minimum.joined(separator: " + ")) }\n\n"
        for property in properties { out += "    public var \(property.name): \(property.type)\n" }
        if !properties.isEmpty { out += "\n" }
        let arguments = properties.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
        out += "    public init(\(arguments)) {\n"
        for property in properties { out += "        self.\(property.name) = \(property.name)\n" }
        out += "    }\n\n"
        out += emitDecode() + "\n" + emitEncode() + "}\n"
        return out
    }

    private func emitDecode() -> String {
        var out = "    public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
        out += "        try reader.require(Self.minimumLength)\n"
        var body = "reader"
        func check(_ read: String, _ constant: String, _ field: String, _ on: String) {
            out += "        let \(field)Offset = \(on).offset\n"
            out += "        let \(field) = try \(on).\(read)()\n"
            out += "        guard \(field) == Self.\(constant) else {\n"
            out +=
                "            throw DecodeError(offset: \(field)Offset, reason: .invalidValue(field: \"\(field)\", value: UInt64(\(field))))\n"
            out += "        }\n"
        }
        func limit(_ read: String) {
            out += "        let parameterLength = Int(try reader.\(read)())\n"
            if !fields.isEmpty || isLEMeta {
                out += "        var body = try reader.limited(to: parameterLength)\n"
                body = "body"
            }
        }
        switch header {
        case .none, .returnParameters: break
        case .att: check("readUInt8", "opcode", "opcode", "reader")
        case .smp: check("readUInt8", "code", "code", "reader")
        case .hciCommand:
            check("readUInt16", "opcode", "opcode", "reader")
            limit("readUInt8")
        case .hciEvent:
            check("readUInt8", "eventCode", "eventCode", "reader")
            limit("readUInt8")
        case .leMeta:
            check("readUInt8", "eventCode", "eventCode", "reader")
            limit("readUInt8")
            check("readUInt8", "subeventCode", "subeventCode", "body")
        case .signaling:
            check("readUInt8", "code", "code", "reader")
            out += "        let identifier = try reader.readUInt8()\n"
            limit("readUInt16")
            out += "        self.identifier = identifier\n"
        }
        for (index, field) in fields.enumerated() {
            let trailing = fields[(index + 1)...].reduce(0) { $0 + ($1.type.fixedSize ?? 0) }
            out += "        \(field.name) = \(field.type.decodeExpression(reader: body, trailing: trailing))\n"
        }
        switch header {
        case .att, .smp: out += "        try reader.expectEnd()\n"
        case .hciCommand, .hciEvent, .leMeta, .signaling:
            out += "        // Octets past the known parameters are skipped: later spec versions may append fields.\n"
            out += "        try reader.skip(parameterLength)\n"
        case .none, .returnParameters: break
        }
        return out + "    }\n"
    }

    private func emitEncode() -> String {
        var out = "    public func encode(into writer: inout ByteWriter) {\n"
        var lengthPatch: String?
        switch header {
        case .none, .returnParameters: break
        case .att: out += "        writer.write(Self.opcode)\n"
        case .smp: out += "        writer.write(Self.code)\n"
        case .hciCommand:
            out +=
                "        writer.write(Self.opcode)\n        let lengthOffset = writer.count\n        writer.write(UInt8(0))\n"
            lengthPatch = "UInt8(truncatingIfNeeded: writer.count - lengthOffset - 1)"
        case .hciEvent:
            out +=
                "        writer.write(Self.eventCode)\n        let lengthOffset = writer.count\n        writer.write(UInt8(0))\n"
            lengthPatch = "UInt8(truncatingIfNeeded: writer.count - lengthOffset - 1)"
        case .leMeta:
            out +=
                "        writer.write(Self.eventCode)\n        let lengthOffset = writer.count\n        writer.write(UInt8(0))\n"
            out += "        writer.write(Self.subeventCode)\n"
            lengthPatch = "UInt8(truncatingIfNeeded: writer.count - lengthOffset - 1)"
        case .signaling:
            out += "        writer.write(Self.code)\n        writer.write(identifier)\n"
            out += "        let lengthOffset = writer.count\n        writer.write(UInt16(0))\n"
            lengthPatch = "UInt16(truncatingIfNeeded: writer.count - lengthOffset - 2)"
        }
        for field in fields { out += "        \(field.type.encodeStatement(field.name))\n" }
        if let lengthPatch { out += "        writer.patch(\(lengthPatch), at: lengthOffset)\n" }
        return out + "    }\n"
    }
}
