import Foundation

/// A table of this package's `Specs/`, as the tests read it to compare with the generated code: each
/// row as a dictionary from column name to field, read by the generator's own `CSVTable`.
public struct SpecTable: Sendable {
    /// The records, in file order.
    public let rows: [[String: String]]

    /// Reads `path`, relative to the package root (`Specs/ble/att-pdus.csv`).
    public init(_ path: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        rows = try CSVTable(root: root, path: path).rows.map(\.fields)
    }

    /// `0x1B` or `1B` as a number.
    public static func code(_ text: String?) -> UInt64? {
        guard let text else { return nil }
        return UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
    }
}
