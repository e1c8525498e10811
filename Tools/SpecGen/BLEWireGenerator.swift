import Foundation
import SpecTables

/// Generates the BLEWire codecs from `Specs/ble/*.csv`: one value type per PDU, command, event and
/// structure, the dispatch enums, the code tables and the round-trip vectors.
struct BLEWireGenerator: SpecGenerator {
    static let folder = "Sources/BLEWire/Generated"

    func generate(root: URL) throws -> [GeneratedFile] {
        let structsTable = try CSVTable(root: root, path: "Specs/ble/structs.csv")
        let structs = try structsTable.rows.map { row in
            BLEShape(
                type: try row.required("type", in: structsTable),
                specName: try row.required("type", in: structsTable),
                section: try row.required("section", in: structsTable),
                header: .none,
                fields: try BLEField.parseList(row.optional("fields"), file: structsTable.path, line: row.line)
            )
        }
        var sampler = BLESampler(structures: Dictionary(uniqueKeysWithValues: structs.map { ($0.type, $0) }))
        var vectors = BLEVectorList()
        for shape in structs { try vectors.add(shape, sampler: &sampler) }

        var files: [GeneratedFile] = [
            GeneratedFile(
                path: "\(Self.folder)/BLEStructures+Generated.swift",
                specs: [structsTable.path],
                body: structs.map { $0.emit() }.joined(separator: "\n")
            )
        ]
        files += try BLEATTGenerator().generate(root: root, sampler: &sampler, vectors: &vectors)
        files += try BLEHCIGenerator().generate(root: root, sampler: &sampler, vectors: &vectors)
        files += try BLEL2CAPGenerator().generate(root: root, sampler: &sampler, vectors: &vectors)
        files += try BLESMPGenerator().generate(root: root, sampler: &sampler, vectors: &vectors)
        files += try BLECodeTableGenerator().generate(root: root)
        files.append(try BLEUUIDGenerator().generate(root: root))
        files.append(try BLEAssignedNumbersGenerator().generate(root: root))
        files.append(vectors.file(folder: Self.folder))
        return files
    }
}

/// Collects the round-trip vectors of every family into one generated file.
struct BLEVectorList {
    private(set) var lines: [String] = []
    private(set) var specs: [String] = ["Specs/ble/structs.csv"]

    /// A vector for the structure itself and, when it belongs to a dispatch enum, one through the enum.
    mutating func add(
        _ shape: BLEShape,
        sampler: inout BLESampler,
        dispatch: (enumType: String, caseName: String)? = nil
    )
        throws
    {
        let sample = try sampler.sample(shape)
        let bytes = BLESampler.literal(sample.bytes)
        lines.append("        WireVector(\"\(shape.type)\", \(sample.expression), \(bytes)),")
        if let dispatch {
            lines.append(
                "        WireVector(\"\(dispatch.enumType).\(dispatch.caseName)\", "
                    + "\(dispatch.enumType).\(dispatch.caseName)(\(sample.expression)), \(bytes)),"
            )
        }
    }

    mutating func addSpec(_ path: String) { if !specs.contains(path) { specs.append(path) } }

    func file(folder: String) -> GeneratedFile {
        var body = "extension WireVector {\n"
        body += "    /// One sample per generated structure (and per dispatch case), with its spec layout octets.\n"
        body += "    package static let generated: [WireVector] = [\n"
        body += lines.joined(separator: "\n") + "\n    ]\n}\n"
        return GeneratedFile(path: "\(folder)/WireVector+Generated.swift", specs: specs, body: body)
    }
}

extension String {
    /// `ATTExchangeMTURequest` less its layer prefix, lower-camel: `exchangeMTURequest`.
    func caseName(droppingPrefix prefix: String) -> String {
        let name = hasPrefix(prefix) ? String(dropFirst(prefix.count)) : self
        // `LE` is its own word: `LEPHYUpdateComplete` → `lePHYUpdateComplete`.
        if name.hasPrefix("LE"), name.count > 2, name.dropFirst(2).first!.isUppercase {
            return "le" + name.dropFirst(2)
        }
        let characters = Array(name)
        var upperRun = 0
        while upperRun < characters.count, characters[upperRun].isUppercase { upperRun += 1 }
        let lowered = upperRun > 1 && upperRun < characters.count ? upperRun - 1 : max(upperRun, 1)
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// Parses `0x1B` or `27`.
    func parseCode(file: String, line: Int) throws -> UInt64 {
        let value = hasPrefix("0x") ? UInt64(dropFirst(2), radix: 16) : UInt64(self)
        guard let value else { throw SpecError(file: file, line: line, message: "bad code '\(self)'") }
        return value
    }
}
