/// Fixed-width columns for the tables people read (`hcipico decode`, `runs`, `analyze`, the rig's summary).
public enum TextColumn {
    /// `text` filled with spaces to `width`: right-aligned, or left-aligned with `left`; longer text as is.
    public static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + fill : fill + text
    }
}

extension TextColumn {
    /// `rows` under `header`, each column left-aligned to its widest cell, two spaces apart.
    public static func table(header: [String], rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : pad(cell, widths[column], left: true)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
