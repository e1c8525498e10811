import Foundation
import SpecTables

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
        let out = BLECodeDispatch(
            enumName: "L2CAPSignalingCommand",
            codeKind: "L2CAP signaling code",
            doc: [
                "Any LE signaling command of Specs/ble/l2cap-signaling.csv, decoded by its code. An unknown code",
                "is a located `DecodeError.Reason.unknownCode` (answer it with L2CAP_COMMAND_REJECT_RSP,",
                "reason 0x0000 Command not understood, Vol 3 Part A §4.1).",
            ],
            identifier: true
        ).emit(cases)
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
