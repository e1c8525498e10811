public import MethodSCRIPT

/// One value of a data package, typed as the device sent it: `ba` = −57.85 µA, status OK, range 0x86,
/// named `c` by the script's `pck_add c`. Text (quantity names, range labels, status names) is made
/// from these fields by the sinks and the CLI, never stored.
public struct PicoValue: Sendable, Equatable {
    /// The MethodSCRIPT variable type, e.g. `ba` (WE current).
    public var variable: VariableType
    /// The script's own name for the variable (`pck_add c` → `c`), when the package could be matched to
    /// one `pck_start … pck_end` block of the script; nil otherwise.
    public var name: String?
    /// The value in the SI base unit of `variable`; NaN when the device sent `nan`.
    public var value: Double
    /// Status flags, when the device sent them (nil when it did not).
    public var status: PackageStatus?
    /// The current range in force (an index into the EmStat Pico's range table), when the device sent it.
    public var range: MeasurementRange?
    /// The noise metadata, when the device sent it.
    public var noise: UInt8?

    /// A value with its metadata as the device sent it: nil for metadata it did not send.
    public init(
        variable: VariableType,
        name: String? = nil,
        value: Double,
        status: PackageStatus? = nil,
        range: MeasurementRange? = nil,
        noise: UInt8? = nil
    ) {
        self.variable = variable
        self.name = name
        self.value = value
        self.status = status
        self.range = range
        self.noise = noise
    }

    /// A decoded MethodSCRIPT value; `status` is kept when the device sent status or range metadata.
    public init(sample: Sample, name: String? = nil) {
        self.init(
            variable: sample.variable,
            name: name,
            value: sample.value,
            status: sample.range != nil || !sample.status.isEmpty ? sample.status : nil,
            range: sample.range,
            noise: sample.noise
        )
    }

    /// The two-letter variable type, e.g. `ba`.
    public var code: String { variable.code }

    /// What it measures, e.g. "WE current" ("unknown" for a type the spec table does not list).
    public var quantity: String { variable.info?.name ?? "unknown" }

    /// SI base unit, e.g. `A`; empty for dimensionless values.
    public var unit: String { variable.unit }

    /// The status as text (`OK`, `UNDERLOAD|OVERLOAD_WARNING`), when the device sent it.
    public var statusText: String? { status?.description }

    /// The range as the EmStat Pico's table labels it (`1 mA (high speed)`), or its hex index when the
    /// table has no such entry.
    public var rangeLabel: String? {
        range.map { range in
            range.info(family: .pico, variable: variable)?.label
                ?? "0x" + String(range.rawValue, radix: 16, uppercase: true)
        }
    }
}
