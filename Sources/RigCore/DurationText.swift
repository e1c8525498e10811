/// Durations as a config writes them: a number and a unit, several parts allowed (`500ms`, `30s`,
/// `10m`, `2h`, `1d`, `1h30m`).
public enum DurationText {
    /// Seconds, or nil when `text` is not a duration (or is zero or negative).
    public static func seconds(_ text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        var rest = Substring(text.trimmingWhitespace())
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard let value = Double(number), value >= 0 else { return nil }
            rest = rest.dropFirst(number.count)
            // `ms` comes first in `units`, so it is never read as minutes.
            guard let unit = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.0.count)
            total += value * unit.1
        }
        return total > 0 ? total : nil
    }

    /// `1.6s`, `42s`, `5m`: `seconds` as a log line says it, to a tenth of a second under ten seconds
    /// and to the second above (a jittered backoff, not 1.634637678109938s).
    public static func approximate(_ seconds: Double) -> String {
        text(seconds < 10 ? (seconds * 10).rounded() / 10 : seconds.rounded())
    }

    /// `1h30m`, `10m`, `2.5s`, `250ms`: the shortest exact text for `seconds`.
    public static func text(_ seconds: Double) -> String {
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        var rest = seconds
        var parts = ""
        for (unit, size) in [("d", 86400.0), ("h", 3600.0), ("m", 60.0)] where rest >= size {
            let whole = (rest / size).rounded(.down)
            parts += "\(Int(whole))\(unit)"
            rest -= whole * size
        }
        if rest > 0 || parts.isEmpty {
            parts += rest == rest.rounded() ? "\(Int(rest))s" : "\(rest)s"
        }
        return parts
    }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace.
    func trimmingWhitespace() -> SubSequence {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return self[start..<Swift.max(start, end)]
    }
}
