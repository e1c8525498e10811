/// The `BT_SECURITY` level asked of an L2CAP link; the kernel runs SMP pairing or encryption to reach it
/// before the link carries data.
public enum L2CAPSecurityLevel: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// No encryption (the default of an LE link).
    case low = 1
    /// Encrypted, unauthenticated pairing allowed (Just Works).
    case medium = 2
    /// Encrypted with an authenticated (MITM-protected) key.
    case high = 3
    /// Authenticated LE Secure Connections with a 128-bit key.
    case fips = 4

    /// The level's lowercase name (`low`, `medium`, `high`, `fips`), as messages show it.
    public var description: String {
        switch self {
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        case .fips: "fips"
        }
    }
}
