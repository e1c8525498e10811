/// Numbers read back from a link's parameters as text (`interval 7.5 ms, latency 0, timeout 2000 ms`,
/// the form of `LinkParameters.description` that runs' provenance and the snapshots carry).
enum LinkText {
    /// The connection interval in seconds, when the text gives one.
    static func intervalSeconds(_ text: String) -> Double? {
        guard let start = text.range(of: "interval ") else { return nil }
        let number = text[start.upperBound...].prefix { $0.isNumber || $0 == "." }
        let rest = text[start.upperBound...].dropFirst(number.count)
        guard rest.hasPrefix(" ms"), let milliseconds = Double(number) else { return nil }
        return milliseconds / 1000
    }
}
