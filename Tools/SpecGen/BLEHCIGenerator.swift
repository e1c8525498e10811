import Foundation
import SpecTables

/// `Specs/ble/hci-commands.csv` and `hci-events.csv` → one struct per command (with its Command Complete
/// `ReturnParameters`) and per event, the `HCICommand` / `HCIEvent` dispatch enums, and the
/// supported-commands bit of every command.
struct BLEHCIGenerator {
    struct Command {
        let shape: BLEShape
        let returns: BLEShape?
        let opcode: UInt16
        let supported: (octet: Int, bit: Int)?
        var caseName: String { shape.type.caseName(droppingPrefix: "HCI") }
    }

    struct Event {
        let shape: BLEShape
        let code: UInt8
        let subevent: UInt8?
        var caseName: String {
            let name = shape.type.hasSuffix("Event") ? String(shape.type.dropLast(5)) : shape.type
            return name.caseName(droppingPrefix: "HCI")
        }
    }

    func generate(root: URL, sampler: inout BLESampler, vectors: inout BLEVectorList) throws -> [GeneratedFile] {
        let commands = try loadCommands(root: root)
        let events = try loadEvents(root: root)
        vectors.addSpec("Specs/ble/hci-commands.csv")
        vectors.addSpec("Specs/ble/hci-events.csv")
        for command in commands {
            try vectors.add(command.shape, sampler: &sampler, dispatch: ("HCICommand", command.caseName))
            if let returns = command.returns { try vectors.add(returns, sampler: &sampler) }
        }
        for event in events { try vectors.add(event.shape, sampler: &sampler, dispatch: ("HCIEvent", event.caseName)) }
        let folder = BLEWireGenerator.folder
        let commandBody = commands.map { command in
            var text = command.shape.emit()
            if let returns = command.returns {
                let nested = returns.emit().split(separator: "\n", omittingEmptySubsequences: false)
                    .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
                text += "\nextension \(command.shape.type) {\n\(nested)}\n"
            }
            return text
        }
        return [
            GeneratedFile(
                path: "\(folder)/HCICommands+Generated.swift",
                specs: ["Specs/ble/hci-commands.csv"],
                body: commandBody.joined(separator: "\n")
            ),
            GeneratedFile(
                path: "\(folder)/HCIEvents+Generated.swift",
                specs: ["Specs/ble/hci-events.csv"],
                body: events.map { $0.shape.emit() }.joined(separator: "\n")
            ),
            GeneratedFile(
                path: "\(folder)/HCICommand+Generated.swift",
                specs: ["Specs/ble/hci-commands.csv"],
                body: emitCommandDispatch(commands)
            ),
            GeneratedFile(
                path: "\(folder)/HCIEvent+Generated.swift",
                specs: ["Specs/ble/hci-events.csv"],
                body: emitEventDispatch(events)
            ),
        ]
    }

    private func loadCommands(root: URL) throws -> [Command] {
        let table = try CSVTable(root: root, path: "Specs/ble/hci-commands.csv")
        return try table.rows.map { row in
            let opcode = try row.required("opcode", in: table).parseCode(file: table.path, line: row.line)
            let type = try row.required("type", in: table)
            let section = "Vol 4 Part E §" + (try row.required("section", in: table))
            let name = try row.required("name", in: table)
            var supported: (Int, Int)?
            if let text = row.optional("supported") {
                let parts = text.split(separator: ".").compactMap { Int($0) }
                guard parts.count == 2, parts[0] < 64, parts[1] < 8 else {
                    throw SpecError(file: table.path, line: row.line, message: "supported must be octet.bit")
                }
                supported = (parts[0], parts[1])
            }
            guard opcode <= 0xFFFF else {
                throw SpecError(file: table.path, line: row.line, message: "opcode > 0xFFFF")
            }
            var shape = BLEShape(
                type: type,
                specName: name,
                section: section,
                header: .hciCommand(opcode: UInt16(opcode)),
                fields: try BLEField.parseList(row.optional("parameters"), file: table.path, line: row.line)
            )
            shape.conformances.append("HCICommandPacket")
            let bit = supported.map { "(octet: \($0.0), bit: \($0.1))" } ?? "nil"
            shape.extraMembers =
                "    /// Where HCI_Read_Local_Supported_Commands reports this command (Vol 4 Part E §6.27).\n"
                + "    public static let supportedCommandsBit: (octet: Int, bit: Int)? = \(bit)\n"
            let returns = try row.optional("returns").map { text in
                BLEShape(
                    type: "\(type).ReturnParameters",
                    specName: "\(name) return parameters",
                    section: section,
                    header: .returnParameters,
                    fields: try BLEField.parseList(text, file: table.path, line: row.line)
                )
            }
            return Command(shape: shape, returns: returns, opcode: UInt16(opcode), supported: supported)
        }
    }

    private func loadEvents(root: URL) throws -> [Event] {
        let table = try CSVTable(root: root, path: "Specs/ble/hci-events.csv")
        return try table.rows.map { row in
            let code = try row.required("code", in: table).parseCode(file: table.path, line: row.line)
            let subevent = try row.optional("subevent").map { try $0.parseCode(file: table.path, line: row.line) }
            guard code <= 0xFF, (subevent ?? 0) <= 0xFF, (subevent != nil) == (code == 0x3E) else {
                throw SpecError(file: table.path, line: row.line, message: "bad code/subevent")
            }
            let shape = BLEShape(
                type: try row.required("type", in: table),
                specName: try row.required("name", in: table),
                section: "Vol 4 Part E §" + (try row.required("section", in: table)),
                header: subevent.map { .leMeta(subevent: UInt8($0)) } ?? .hciEvent(code: UInt8(code)),
                fields: try BLEField.parseList(row.optional("parameters"), file: table.path, line: row.line)
            )
            return Event(shape: shape, code: UInt8(code), subevent: subevent.map { UInt8($0) })
        }
    }

    private func emitCommandDispatch(_ commands: [Command]) -> String {
        var out = "/// Any HCI command of Specs/ble/hci-commands.csv, decoded by its opcode (for fakes and capture\n"
        out += "/// decoding). An unknown opcode is a located `DecodeError.Reason.unknownCode`.\n"
        out += "public enum HCICommand: WireCodable {\n"
        for command in commands { out += "    case \(command.caseName)(\(command.shape.type))\n" }
        out += "\n    public static var minimumLength: Int { 3 }\n\n"
        out += "    /// Every command of the table: opcode, spec name and supported-commands bit.\n"
        out += "    public static let table: [(opcode: UInt16, name: String, supported: (octet: Int, bit: Int)?)] = [\n"
        for command in commands {
            out += String(format: "        (0x%04X, ", command.opcode)
            out += "\"\(command.shape.specName)\", \(command.shape.type).supportedCommandsBit),\n"
        }
        out += "    ]\n\n"
        out += "    public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
        out += "        try reader.require(Self.minimumLength)\n"
        out += "        let opcode = try reader.peekUInt16()\n        switch opcode {\n"
        for command in commands {
            let type = command.shape.type
            out += "        case \(type).opcode: self = .\(command.caseName)(try \(type)(parsing: &reader))\n"
        }
        out += "        default:\n"
        out +=
            "            throw DecodeError(offset: reader.offset, reason: .unknownCode(kind: \"HCI command opcode\", code: opcode))\n"
        out += "        }\n    }\n\n"
        out += "    public var opcode: UInt16 {\n        switch self {\n"
        for command in commands { out += "        case .\(command.caseName): \(command.shape.type).opcode\n" }
        out += "        }\n    }\n\n"
        out += "    public func encode(into writer: inout ByteWriter) {\n        switch self {\n"
        for command in commands {
            out += "        case .\(command.caseName)(let command): command.encode(into: &writer)\n"
        }
        out += "        }\n    }\n}\n"
        return out
    }

    private func emitEventDispatch(_ events: [Event]) -> String {
        var out = "/// Any HCI event of Specs/ble/hci-events.csv, decoded by its event code and, for LE Meta (0x3E),\n"
        out += "/// its subevent code. An unknown code is a located `DecodeError.Reason.unknownCode` (kind\n"
        out += "/// `HCI event code` or `LE subevent code`), so a host can skip events it does not handle.\n"
        out += "public enum HCIEvent: WireCodable {\n"
        for event in events { out += "    case \(event.caseName)(\(event.shape.type))\n" }
        out += "\n    public static var minimumLength: Int { 2 }\n\n"
        out += "    /// Every event of the table: event code, LE subevent code (nil unless LE Meta) and spec name.\n"
        out += "    public static let table: [(code: UInt8, subevent: UInt8?, name: String)] = [\n"
        for event in events {
            out += String(format: "        (0x%02X, ", event.code)
            out += (event.subevent.map { String(format: "0x%02X", $0) } ?? "nil") + ", \"\(event.shape.specName)\"),\n"
        }
        out += "    ]\n\n"
        out += "    public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
        out += "        try reader.require(Self.minimumLength)\n"
        out += "        let code = try reader.peekUInt8()\n        switch code {\n"
        for event in events where event.subevent == nil {
            let type = event.shape.type
            out += "        case \(type).eventCode: self = .\(event.caseName)(try \(type)(parsing: &reader))\n"
        }
        out += "        case 0x3E:\n"
        out += "            var subeventReader = reader\n            try subeventReader.skip(2)\n"
        out += "            let subevent = try subeventReader.peekUInt8()\n            switch subevent {\n"
        for event in events where event.subevent != nil {
            let type = event.shape.type
            out += "            case \(type).subeventCode: self = .\(event.caseName)(try \(type)(parsing: &reader))\n"
        }
        out += "            default:\n"
        out += "                throw DecodeError(\n                    offset: subeventReader.offset,\n"
        out +=
            "                    reason: .unknownCode(kind: \"LE subevent code\", code: UInt16(subevent))\n                )\n"
        out += "            }\n"
        out += "        default:\n"
        out +=
            "            throw DecodeError(offset: reader.offset, reason: .unknownCode(kind: \"HCI event code\", code: UInt16(code)))\n"
        out += "        }\n    }\n\n"
        out += "    public func encode(into writer: inout ByteWriter) {\n        switch self {\n"
        for event in events { out += "        case .\(event.caseName)(let event): event.encode(into: &writer)\n" }
        out += "        }\n    }\n}\n"
        return out
    }
}
