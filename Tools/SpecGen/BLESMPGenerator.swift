import Foundation

/// `Specs/ble/smp-pdus.csv` → one struct per Security Manager command and the `SMPCommand` dispatch enum.
struct BLESMPGenerator {
    func generate(root: URL, sampler: inout BLESampler, vectors: inout BLEVectorList) throws -> [GeneratedFile] {
        let table = try CSVTable(root: root, path: "Specs/ble/smp-pdus.csv")
        let shapes = try table.rows.map { row in
            let code = try row.required("code", in: table).parseCode(file: table.path, line: row.line)
            guard code <= 0xFF else { throw SpecError(file: table.path, line: row.line, message: "code > 0xFF") }
            return BLEShape(
                type: try row.required("type", in: table),
                specName: try row.required("name", in: table),
                section: "Vol 3 Part H §" + (try row.required("section", in: table)),
                header: .smp(code: UInt8(code)),
                fields: try BLEField.parseList(row.optional("fields"), file: table.path, line: row.line)
            )
        }
        vectors.addSpec(table.path)
        let cases = shapes.map { ($0.type.caseName(droppingPrefix: "SMP"), $0) }
        for (caseName, shape) in cases {
            try vectors.add(shape, sampler: &sampler, dispatch: ("SMPCommand", caseName))
        }
        var out =
            "/// Any Security Manager command of Specs/ble/smp-pdus.csv, decoded by its code. An unknown code is a\n"
        out += "/// located `DecodeError.Reason.unknownCode` (answer it with Pairing Failed, Command Not Supported).\n"
        out += "public enum SMPCommand: WireCodable {\n"
        for (caseName, shape) in cases { out += "    case \(caseName)(\(shape.type))\n" }
        out += "\n    public static var minimumLength: Int { 1 }\n\n"
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
            "            throw DecodeError(offset: reader.offset, reason: .unknownCode(kind: \"SMP command code\", code: UInt16(code)))\n"
        out += "        }\n    }\n\n"
        out += "    public func encode(into writer: inout ByteWriter) {\n        switch self {\n"
        for (caseName, _) in cases { out += "        case .\(caseName)(let command): command.encode(into: &writer)\n" }
        out += "        }\n    }\n}\n"
        let folder = BLEWireGenerator.folder
        return [
            GeneratedFile(
                path: "\(folder)/SMPCommands+Generated.swift",
                specs: [table.path],
                body: shapes.map { $0.emit() }.joined(separator: "\n")
            ),
            GeneratedFile(path: "\(folder)/SMPCommand+Generated.swift", specs: [table.path], body: out),
        ]
    }
}
