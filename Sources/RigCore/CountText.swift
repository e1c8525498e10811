/// A count and its noun as a log line or a status says it: `3 devices`, `1 device`.
public enum CountText {
    /// `count` and `noun`, in the plural (an `s` added) unless the count is one.
    public static func of(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
