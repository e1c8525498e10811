/// One decoded value of a data package: `<type><7 hex digits><prefix>(,<metadata>)*`.
public struct Sample: Hashable, Sendable {
    /// The variable type (two letters).
    public var variable: VariableType
    /// The value in the SI base unit of `variable` (`NaN` for the `     nan` form).
    public var value: Double
    /// Status bits; empty when the status metadata is absent or zero.
    public var status: PackageStatus
    /// The range index, when the package carried one.
    public var range: MeasurementRange?
    /// The noise metadata, when present.
    public var noise: UInt8?
    /// The value was sent with the `i` (integer) prefix.
    public var isInteger: Bool

    /// A value with its metadata; by default it carries none (status `.ok`, no range, no noise) and is not
    /// an integer.
    public init(
        variable: VariableType,
        value: Double,
        status: PackageStatus = .ok,
        range: MeasurementRange? = nil,
        noise: UInt8? = nil,
        isInteger: Bool = false
    ) {
        self.variable = variable
        self.value = value
        self.status = status
        self.range = range
        self.noise = noise
        self.isInteger = isInteger
    }

    /// `true` for the explicit NaN form.
    public var isNaN: Bool { value.isNaN }

    /// Compares NaN values as equal (the default `==` does not).
    public func sameDecoding(as other: Sample) -> Bool {
        variable == other.variable && status == other.status && range == other.range && noise == other.noise
            && isInteger == other.isInteger && (value == other.value || (value.isNaN && other.value.isNaN))
    }
}
