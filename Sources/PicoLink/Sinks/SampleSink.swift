/// Where decoded packages go: a file format, a plot, a rig's own store.
///
/// A sink is called in order, one call at a time: `begin`, then `write` per package (and `sync` as the
/// `SyncPolicy` says), then `finish` exactly once, also when the run was cut short
/// (`RunEnd.complete == false`), then `sync`. Sinks that write files must have handed each package to
/// the kernel before `write` returns, and flushed it to the device when `sync` returns.
public protocol SampleSink: AnyObject {
    func begin(_ run: RunInfo) throws(SinkError)
    func write(_ package: PicoPackage) throws(SinkError)
    func finish(_ end: RunEnd) throws(SinkError)
    /// Makes everything written so far survive a power cut.
    func sync() throws(SinkError)
}

extension SampleSink {
    /// Sinks that keep nothing on disk have nothing to sync.
    public func sync() throws(SinkError) {}
}

/// Text helpers shared by the text sinks.
enum SinkText {
    /// Shortest round-trip decimal form; `NaN`/`inf` spelled as given.
    static func number(_ value: Double, nan: String) -> String {
        if value.isNaN { return nan }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return String(value)
    }

    /// A JSON number; `null` for NaN and infinities, which JSON cannot express.
    static func jsonNumber(_ value: Double) -> String { value.isFinite ? String(value) : "null" }

    /// Seconds with microsecond resolution, e.g. `1763787000.123456`.
    static func seconds(_ value: Double) -> String {
        // Unknown (a decoded transcript has no host time): an empty field.
        guard value.isFinite else { return "" }
        let micros = Int64((value * 1_000_000).rounded())
        let whole = micros / 1_000_000
        let fraction = abs(micros % 1_000_000)
        let digits = String(fraction)
        let sign = micros < 0 && whole == 0 ? "-" : ""
        return "\(sign)\(whole).\(String(repeating: "0", count: 6 - digits.count))\(digits)"
    }

    /// A CSV field, quoted when it holds a comma, quote or newline.
    static func csv(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }
}
