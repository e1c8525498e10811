/// Fixed-width columns for the tables the commands print (`decode`, `runs`, the rig's summary).
enum TextColumn {
    /// `text` filled with spaces to `width`: right-aligned, or left-aligned with `left`; longer text as is.
    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + fill : fill + text
    }
}

extension TextColumn {
    /// `rows` under `header`, each column left-aligned to its widest cell, two spaces apart.
    static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : pad(cell, widths[column], left: true)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// Four uppercase hex digits (`002A`), as handles are printed.
func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - digits.count) + digits
}
