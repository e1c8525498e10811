/// The status metadata of a value (type `1`): a bit mask, several bits may be set together.
/// The bits themselves are generated from `Specs/methodscript/metadata.csv`.
public struct PackageStatus: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The bits as the device sent them (one hex digit of status metadata).
    public var rawValue: UInt8

    /// The status with exactly the bits of `rawValue`, known or not.
    @inline(__always)
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// No bit set.
    public static let ok: PackageStatus = []

    /// The set bits by name joined with `|`, `OK` when none is set; unknown bits as hex.
    public var description: String {
        if isEmpty { return "OK" }
        var parts = Self.named.filter { contains($0.0) }.map(\.1)
        let known = Self.named.reduce(UInt8(0)) { $0 | $1.0.rawValue }
        if rawValue & ~known != 0 { parts.append("0x" + String(rawValue & ~known, radix: 16, uppercase: true)) }
        return parts.joined(separator: "|")
    }
}

/// The kinds of metadata after a value (`,<type digit><hex payload>`).
public enum MetadataType: UInt8, Sendable, CaseIterable {
    /// Type digit `1`: the status bits, one hex digit (`PackageStatus`).
    case status
    /// Type digit `2`: the range index, two hex digits (`MeasurementRange`).
    case range
    /// Type digit `4`: the noise metadata, one hex digit.
    case noise
}
