/// One parameter of a technique, from `Specs/methodscript/technique-parameters.csv`.
public struct MethodParameter: Sendable, Hashable {
    /// Its key in method files and on the command line, e.g. `scan_rate`.
    public let key: String
    /// Its unit (`V`, `V/s`, `s`, `Hz`, `A`; empty for counts).
    public let unit: String
    /// The lowest value allowed, if any.
    public let minimum: Double?
    /// The highest value allowed, if any.
    public let maximum: Double?
    /// Whether `minimum` itself is refused.
    public let minimumExcluded: Bool
    /// The value a method has unless it is given.
    public let defaultValue: Double
    /// Whether the value must be a whole number.
    public let isInteger: Bool
    /// What it means, in a phrase.
    public let meaning: String

    /// Why `value` is refused, or nil when it is allowed.
    public func problem(with value: Double) -> String? {
        let limit = InstrumentLimit(
            name: key,
            minimum: minimum,
            maximum: maximum,
            minimumExcluded: minimumExcluded,
            unit: unit,
            meaning: meaning
        )
        if !limit.contains(value) { return "must be \(limit.bounds)" }
        if isInteger, value != value.rounded() { return "must be a whole number" }
        return nil
    }

    /// The bounds in words, e.g. `from -1.7 V to 2 V`.
    public var bounds: String {
        InstrumentLimit.bounds(minimum: minimum, maximum: maximum, minimumExcluded: minimumExcluded, unit: unit)
    }
}
