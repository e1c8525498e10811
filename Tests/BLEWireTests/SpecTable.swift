import Foundation

/// Reads a spec table of `Specs/ble/` for comparison with the generated code: the header row names
/// the columns, `#` lines are comments. Quoted fields are not used in these tables.
struct SpecTable {
    let rows: [[String: String]]

    init(_ name: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("Specs/ble/\(name)"), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        rows = lines.dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            return Dictionary(uniqueKeysWithValues: zip(header, fields.map(String.init)))
        }
    }

    /// `0x1B` or `1B` as a number.
    static func code(_ text: String?) -> UInt64? {
        guard let text else { return nil }
        return UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
    }
}
