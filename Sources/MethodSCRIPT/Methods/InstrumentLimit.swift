/// A bound of the instrument or of MethodSCRIPT, from `Specs/methodscript/instrument-limits.csv`.
public struct InstrumentLimit: Sendable, Hashable {
    /// Its name in the table, e.g. `potential`.
    public let name: String
    /// The lowest value allowed, if any.
    public let minimum: Double?
    /// The highest value allowed, if any.
    public let maximum: Double?
    /// Whether `minimum` itself is refused (a value must be above it).
    public let minimumExcluded: Bool
    /// The unit of the bounds (`V`, `Hz`, …; empty for counts).
    public let unit: String
    /// What it bounds.
    public let meaning: String

    /// Whether `value` is within the bounds.
    public func contains(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        if let minimum, minimumExcluded ? value <= minimum : value < minimum { return false }
        if let maximum, value > maximum { return false }
        return true
    }

    /// The bounds in words: `from -1.7 V to 2 V`, `above 0`, `at most 127 characters`.
    public var bounds: String {
        Self.bounds(minimum: minimum, maximum: maximum, minimumExcluded: minimumExcluded, unit: unit)
    }

    static func bounds(minimum: Double?, maximum: Double?, minimumExcluded: Bool, unit: String) -> String {
        let unitText = unit.isEmpty ? "" : " \(unit)"
        switch (minimum, maximum) {
        case (let low?, let high?) where minimumExcluded:
            return "above \(MethodNumber.plain(low))\(unitText) and at most \(MethodNumber.plain(high))\(unitText)"
        case (let low?, let high?):
            return "from \(MethodNumber.plain(low))\(unitText) to \(MethodNumber.plain(high))\(unitText)"
        case (let low?, nil):
            return "\(minimumExcluded ? "above" : "at least") \(MethodNumber.plain(low))\(unitText)"
        case (nil, let high?): return "at most \(MethodNumber.plain(high))\(unitText)"
        case (nil, nil): return "any value"
        }
    }
}
