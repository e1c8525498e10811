import Foundation
import SpecTables

/// `Specs/methodscript/metadata.csv`'s EmStat Pico current ranges → the simulator's range tables in
/// `Sources/PicoSimulator/Generated/`, so the simulator and the decoder read one table.
struct PicoSimulatorGenerator: SpecGenerator {
    func generate(root: URL) throws -> [GeneratedFile] {
        let table = try CSVTable(root: root, path: "Specs/methodscript/metadata.csv")
        var low: [(Int, String)] = []
        var high: [(Int, String)] = []
        var lastLine = 1
        for row in table.rows where row.optional("table") == "current" && row.optional("family") == "pico" {
            let index = try MethodSCRIPTGenerator.integer(try row.required("index", in: table), row: row, table: table)
            let scale = try MethodSCRIPTGenerator.double(
                try row.required("full_scale", in: table),
                row: row,
                table: table
            )
            if index >= 0x80 { high.append((index - 0x80, scale)) } else { low.append((index, scale)) }
            lastLine = row.line
        }
        for (name, ranges) in [("low-speed", low), ("high-speed", high)]
        where ranges.map(\.0) != Array(0..<ranges.count) || ranges.isEmpty {
            throw SpecError(
                file: table.path,
                line: lastLine,
                message: "the pico \(name) current ranges are not 0, 1, 2…"
            )
        }
        var out = "extension PicoCurrentRange {\n"
        out += "    /// Full scale (A) of the low-speed ranges, by index 0x00….\n"
        out += "    static let lowSpeedFullScales: [Double] = [\(low.map(\.1).joined(separator: ", "))]\n\n"
        out += "    /// Full scale (A) of the high-speed ranges, by index 0x80….\n"
        out += "    static let highSpeedFullScales: [Double] = [\(high.map(\.1).joined(separator: ", "))]\n}\n"
        return [
            GeneratedFile(
                path: "Sources/PicoSimulator/Generated/PicoCurrentRange+Generated.swift",
                specs: [table.path],
                body: out
            )
        ]
    }
}
