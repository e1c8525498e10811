/// How many data points a script will send, when it says so plainly: exactly one measurement loop of
/// a technique hcipico knows, outside any `loop`. Then the live view can give a percentage and the
/// time left; for any other script it says nothing it cannot know.
public enum ScriptExtent {
    /// The points `lines` (the script without `e`) will send, or nil when the script does not say.
    public static func expectedPoints(_ lines: [String]) -> Int? {
        let commands = lines.map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) }
        let loops = commands.filter { $0.first?.hasPrefix("meas_loop_") == true }
        guard loops.count == 1, !commands.contains(where: { $0.first == "loop" }) else { return nil }
        let words = loops[0]
        func value(_ index: Int) -> Double? { index < words.count ? number(words[index]) : nil }
        func sweep(_ begin: Int) -> Int? {
            guard let from = value(begin), let to = value(begin + 1), let step = value(begin + 2) else { return nil }
            return steps(abs(to - from), step).map { $0 + 1 }
        }
        switch words[0] {
        case "meas_loop_lsv", "meas_loop_dpv": return sweep(3)
        case "meas_loop_swv": return sweep(5)
        case "meas_loop_ca":
            guard let interval = value(4), let run = value(5) else { return nil }
            return steps(run, interval)
        case "meas_loop_cv":
            guard let begin = value(3), let first = value(4), let second = value(5), let step = value(6),
                let one = steps(abs(first - begin), step), let two = steps(abs(second - first), step),
                let three = steps(abs(begin - second), step)
            else { return nil }
            let scans = words.compactMap(scanCount).first ?? 1
            return (one + two + three + 1) * scans
        case "meas_loop_eis":
            return value(7).flatMap { $0 >= 1 && $0 <= 100_000 ? Int($0) : nil }
        default: return nil
        }
    }

    /// Whole steps of `step` in `span`, when both make sense.
    private static func steps(_ span: Double, _ step: Double) -> Int? {
        guard step > 0, span >= 0, span / step < 10_000_000 else { return nil }
        return Int((span / step + 1e-9).rounded(.down))
    }

    /// `nscans(3)` → 3.
    private static func scanCount(_ word: String) -> Int? {
        guard word.hasPrefix("nscans("), word.hasSuffix(")") else { return nil }
        return Int(word.dropFirst(7).dropLast())
    }

    /// A MethodSCRIPT number: `-500m`, `100k`, `31i` (an integer), `0.5`.
    static func number(_ word: String) -> Double? {
        let multipliers: [Character: Double] = [
            "a": 1e-18, "f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9,
            "T": 1e12, "P": 1e15, "E": 1e18, "i": 1,
        ]
        guard let last = word.last else { return nil }
        if let multiplier = multipliers[last] { return Double(word.dropLast()).map { $0 * multiplier } }
        return Double(word)
    }
}
