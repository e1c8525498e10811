/// The status metadata of a value (type `1`): a bit mask, several bits may be set together.
/// The bits themselves are generated from `Specs/methodscript/metadata.csv`.
public struct PackageStatus: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8

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
    case status
    case range
    case noise
}
