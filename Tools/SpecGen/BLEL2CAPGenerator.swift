import Foundation

/// `Specs/ble/l2cap-signaling.csv` → one struct per LE signaling command and the
/// `L2CAPSignalingCommand` dispatch enum.
struct BLEL2CAPGenerator {
    func generate(root: URL, sampler: inout BLESampler, vectors: inout BLEVectorList) throws -> [GeneratedFile] {
        let table = try CSVTable(root: root, path: "Specs/ble/l2cap-signaling.csv")
        let shapes = try table.rows.map { row in
            let code = try row.required("code", in: table).parseCode(file: table.path, line: row.line)
            guard code <= 0xFF else { throw SpecError(file: table.path, line: row.line, message: "code > 0xFF") }
            return BLEShape(
                type: try row.required("type", in: table),
                specName: try row.required("name", in: table),
                section: "Vol 3 Part A §" + (try row.required("section", in: table)),
                header: .signaling(code: UInt8(code)),
                fields: try BLEField.parseList(row.optional("fields"), file: table.path, line: row.line)
            )
        }
        vectors.addSpec(table.path)
        let cases = shapes.map { ($0.type.caseName(droppingPrefix: "L2CAP"), $0) }
        for (caseName, shape) in cases {
            try vectors.add(shape, sampler: &sampler, dispatch: ("L2CAPSignalingCommand", caseName))
        }
        var out =
            "/// Any LE signaling command of Specs/ble/l2cap-signaling.csv, decoded by its code. An unknown code\n"
        out += "/// is a located `DecodeError.Reason.unknownCode` (answer it with L2CAP_COMMAND_REJECT_RSP,\n"
        out += "/// reason 0x0000 Command not understood, Vol 3 Part A §4.1).\n"
        out += "public enum L2CAPSignalingCommand: WireCodable {\n"
        for (caseName, shape) in cases { out += "    case \(caseName)(\(shape.type))\n" }
        out += "\n    public static var minimumLength: Int { 4 }\n\n"
        out += "    /// Every command of the table: code and spec name.\n"
        out += "    public static let table: [(code: UInt8, name: String)] = [\n"
        for (_, shape) in cases { out += "        (\(shape.type).code, \"\(shape.specName)\"),\n" }
        out += "    ]\n\n"
        out += "    public init(parsing reader: inout ByteReader) throws(DecodeError) {\n"
        out += "        try reader.require(Self.minimumLength)\n"
        out += "        let code = try reader.peekUInt8()\n        switch code {\n"
        for (caseName, shape) in cases {
            out += "        case \(shape.type).code: self = .\(caseName)(try \(shape.type)(parsing: &reader))\n"
        }
        out += "        default:\n"
        out +=
            "            throw DecodeError(offset: reader.offset, reason: .unknownCode(kind: \"L2CAP signaling code\", code: UInt16(code)))\n"
        out += "        }\n    }\n\n"
        out += "    /// The identifier that pairs a request with its response.\n"
        out += "    public var identifier: UInt8 {\n        switch self {\n"
        for (caseName, _) in cases { out += "        case .\(caseName)(let command): command.identifier\n" }
        out += "        }\n    }\n\n"
        out += "    public func encode(into writer: inout ByteWriter) {\n        switch self {\n"
        for (caseName, _) in cases { out += "        case .\(caseName)(let command): command.encode(into: &writer)\n" }
        out += "        }\n    }\n}\n"
        let folder = BLEWireGenerator.folder
        return [
            GeneratedFile(
                path: "\(folder)/L2CAPSignaling+Generated.swift",
                specs: [table.path],
                body: shapes.map { $0.emit() }.joined(separator: "\n")
            ),
            GeneratedFile(path: "\(folder)/L2CAPSignalingCommand+Generated.swift", specs: [table.path], body: out),
        ]
    }
}
