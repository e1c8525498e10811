/// The range metadata of a value (type `2`): an index into a device-family range table. Which table
/// applies depends on the device family and on the variable (current or potential range).
public struct MeasurementRange: RawRepresentable, Hashable, Sendable {
    /// The index the device sent (two hex digits).
    public var rawValue: UInt8

    /// The range index `rawValue` as the device sent it, high-speed bit included.
    @inline(__always)
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// EmStat Pico (and Sensit Wearable) mark their high-speed ranges with bit 7; no other family does.
    public func isHighSpeed(on family: DeviceFamily) -> Bool {
        family == .pico && rawValue & 0x80 != 0
    }

    /// The EmStat Pico's current ranges by index (its high-speed ones with bit 7 set), from the Specs:
    /// what the journal and PostgreSQL give `samples` to turn an index into amperes.
    public static let picoCurrentRanges: [(index: UInt8, info: RangeInfo)] = (0...UInt8.max).compactMap { index in
        info(family: .pico, kind: .current, index: index).map { (index, $0) }
    }

    /// The table entry for this index on `family` for a variable of `variable`'s range kind. The EmStat
    /// Pico has current ranges only.
    public func info(family: DeviceFamily, variable: VariableType) -> RangeInfo? {
        let kind: RangeKind = family == .pico ? .current : variable.rangeKind
        return Self.info(family: family, kind: kind, index: rawValue)
    }
}

/// One range table entry: full scale in A or V, and its label (`1 mA (high speed)`).
public struct RangeInfo: Sendable, Equatable {
    /// The range's full scale, in A for a current range or V for a potential range.
    public let fullScale: Double
    /// The range as the spec table names it, e.g. `1 mA (high speed)`.
    public let label: String
}
