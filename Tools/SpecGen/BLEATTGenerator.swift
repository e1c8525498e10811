import Foundation
import SpecTables

/// `Specs/ble/att-pdus.csv` → one struct per ATT PDU, `ATTOpcode`, the `ATTPDU` dispatch enum and the
/// borrowed `View`s of the PDUs that end in a value (the no-allocation receive path).
struct BLEATTGenerator {
    struct PDU {
        let shape: BLEShape
        let opcode: UInt8
        let kind: String
        let answer: UInt8?
        var caseName: String { shape.type.caseName(droppingPrefix: "ATT") }
    }

    static let kinds: Set = ["request", "response", "command", "notification", "indication", "confirmation"]

    func generate(root: URL, sampler: inout BLESampler, vectors: inout BLEVectorList) throws -> [GeneratedFile] {
        let table = try CSVTable(root: root, path: "Specs/ble/att-pdus.csv")
        let pdus = try table.rows.map { row in
            let opcode = try row.required("opcode", in: table).parseCode(file: table.path, line: row.line)
            let kind = try row.required("kind", in: table)
            guard opcode <= 0xFF, Self.kinds.contains(kind) else {
                throw SpecError(file: table.path, line: row.line, message: "bad opcode or kind")
            }
            return PDU(
                shape: BLEShape(
                    type: try row.required("type", in: table),
                    specName: try row.required("name", in: table),
                    section: "Vol 3 Part F §" + (try row.required("section", in: table)),
                    header: .att(opcode: UInt8(opcode)),
                    fields: try BLEField.parseList(row.optional("fields"), file: table.path, line: row.line)
                ),
                opcode: UInt8(opcode),
                kind: kind,
                answer: try row.optional("answer").map { UInt8(try $0.parseCode(file: table.path, line: row.line)) }
            )
        }
        vectors.addSpec(table.path)
        for pdu in pdus {
            try vectors.add(pdu.shape, sampler: &sampler, dispatch: ("ATTPDU", pdu.caseName))
        }
        let folder = BLEWireGenerator.folder
        return [
            GeneratedFile(
                path: "\(folder)/ATTPDUs+Generated.swift",
                specs: [table.path],
                body: pdus.map { $0.shape.emit() }.joined(separator: "\n")
            ),
            GeneratedFile(path: "\(folder)/ATTPDU+Generated.swift", specs: [table.path], body: emitDispatch(pdus)),
            GeneratedFile(
                path: "\(folder)/ATTPDUViews+Generated.swift",
                specs: [table.path],
                body: pdus.compactMap(emitView).joined(separator: "\n")
            ),
        ]
    }

    private func emitDispatch(_ pdus: [PDU]) -> String {
        var out = "/// Every ATT opcode of Core 5.4 Vol 3 Part F §3.4 (the table in Specs/ble/att-pdus.csv).\n"
        out += "public enum ATTOpcode: UInt8, Sendable, CaseIterable {\n"
        for pdu in pdus { out += String(format: "    case \(pdu.caseName) = 0x%02X\n", pdu.opcode) }
        out += "\n    /// The spec's name, e.g. `ATT_HANDLE_VALUE_NTF`.\n    public var specName: String {\n"
        out += "        switch self {\n"
        for pdu in pdus { out += "        case .\(pdu.caseName): \"\(pdu.shape.specName)\"\n" }
        out += "        }\n    }\n\n    public var kind: ATTPDUKind {\n        switch self {\n"
        for pdu in pdus { out += "        case .\(pdu.caseName): .\(pdu.kind)\n" }
        out += "        }\n    }\n\n"
        out += "    /// The opcode that answers this request or indication (a request may also get ATT_ERROR_RSP).\n"
        out += "    public var answer: ATTOpcode? {\n        switch self {\n"
        for pdu in pdus {
            let answer = pdu.answer.flatMap { code in pdus.first { $0.opcode == code } }
            out += "        case .\(pdu.caseName): \(answer.map { ".\($0.caseName)" } ?? "nil")\n"
        }
        out += "        }\n    }\n}\n\n"

        out += "/// Any ATT PDU: decoded by its first octet, never trapping on unknown input (an unknown opcode is a\n"
        out += "/// located `DecodeError.Reason.unknownCode`).\n"
        out += "public enum ATTPDU: WireCodable {\n"
        for pdu in pdus { out += "    case \(pdu.caseName)(\(pdu.shape.type))\n" }
        out += "\n    public static var minimumLength: Int { 1 }\n\n"
        out += "    public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
        out += "        let opcode = try reader.peekUInt8()\n        switch opcode {\n"
        for pdu in pdus {
            out +=
                "        case \(pdu.shape.type).opcode: self = .\(pdu.caseName)(try \(pdu.shape.type)(parsing: &reader))\n"
        }
        out += "        default:\n"
        out +=
            "            throw DecodeError(offset: reader.offset, reason: .unknownCode(kind: \"ATT opcode\", code: UInt16(opcode)))\n"
        out += "        }\n    }\n\n"
        out += "    public var opcode: ATTOpcode {\n        switch self {\n"
        for pdu in pdus { out += "        case .\(pdu.caseName): .\(pdu.caseName)\n" }
        out += "        }\n    }\n\n"
        out += "    public func encode(into writer: inout ByteWriter) {\n        switch self {\n"
        for pdu in pdus { out += "        case .\(pdu.caseName)(let pdu): pdu.encode(into: &writer)\n" }
        out += "        }\n    }\n}\n"
        return out
    }

    /// A borrowed view for a PDU of fixed integer fields and a value running to the end of the PDU.
    private func emitView(_ pdu: PDU) -> String? {
        guard let last = pdu.shape.fields.last, last.type == .rest else { return nil }
        let fixed = pdu.shape.fields.dropLast()
        guard fixed.allSatisfy({ if case .integer = $0.type { true } else { false } }) else { return nil }
        let type = pdu.shape.type
        var out = "extension \(type) {\n"
        out += "    /// \(pdu.shape.specName) decoded without copying or allocating: `\(last.name)` borrows the PDU's\n"
        out += "    /// bytes, so use the view only while they are valid (inside the receive callback).\n"
        out += "    public struct View {\n"
        for field in pdu.shape.fields.dropLast() {
            out += "        public let \(field.name): \(field.type.swiftType)\n"
        }
        out += "        public let \(last.name): UnsafeRawBufferPointer\n\n"
        out += "        /// Decodes the whole PDU in `reader` (opcode first).\n"
        out += "        @inlinable\n        public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
        out += "            try reader.require(\(type).minimumLength)\n"
        out += "            let opcodeOffset = reader.offset\n            let opcode = try reader.readUInt8()\n"
        out += "            guard opcode == \(type).opcode else {\n"
        out +=
            "                throw DecodeError(offset: opcodeOffset, reason: .invalidValue(field: \"opcode\", value: UInt64(opcode)))\n"
        out += "            }\n"
        for field in fixed {
            out += "            \(field.name) = \(field.type.decodeExpression(reader: "reader", trailing: 0))\n"
        }
        out += "            \(last.name) = reader.readRemaining()\n        }\n\n"
        out += "        /// Decodes one whole PDU, e.g. the buffer `recv` filled.\n"
        out += "        @inlinable\n        public init(pdu: UnsafeRawBufferPointer) throws(DecodeError) {\n"
        out += "            var reader = ByteReader(pdu)\n            try self.init(parsing: &reader)\n        }\n\n"
        out += "        /// An owning copy (allocates).\n        public var owned: \(type) {\n"
        let arguments = fixed.map { "\($0.name): \($0.name)" } + ["\(last.name): Array(\(last.name))"]
        out += "            \(type)(\(arguments.joined(separator: ", ")))\n        }\n    }\n}\n"
        return out
    }
}
