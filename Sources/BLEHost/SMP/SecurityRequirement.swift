/// How protected a link must be before an operation can use it (the ATT security levels a server
/// asks for with Insufficient Encryption and Insufficient Authentication).
public enum SecurityRequirement: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Encrypted, with any key (Just Works is enough).
    case encrypted
    /// Encrypted with a key paired with protection against a man in the middle (passkey or numeric comparison).
    case authenticated

    /// `encrypted` or `authenticated`.
    public var description: String {
        switch self {
        case .encrypted: "encrypted"
        case .authenticated: "authenticated"
        }
    }

    /// Whether a bond of this kind meets the requirement.
    public func isMet(by bond: SecurityBond) -> Bool { self == .encrypted || bond.authenticated }
}
