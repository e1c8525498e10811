/// Fixed-width columns for the tables the commands print (`decode`, `runs`, the rig's summary).
enum TextColumn {
    /// `text` filled with spaces to `width`: right-aligned, or left-aligned with `left`; longer text as is.
    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + fill : fill + text
    }
}
