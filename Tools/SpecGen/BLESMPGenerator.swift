import Foundation
import SpecTables

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
        let out = BLECodeDispatch(
            enumName: "SMPCommand",
            codeKind: "SMP command code",
            doc: [
                "Any Security Manager command of Specs/ble/smp-pdus.csv, decoded by its code. An unknown code is a",
                "located `DecodeError.Reason.unknownCode` (answer it with Pairing Failed, Command Not Supported).",
            ],
            identifier: false
        ).emit(cases)
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
