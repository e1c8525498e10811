import BLEHost
import BLELinux

/// How secured a link must be before it is used.
public enum SecurityMode: String, CaseIterable, Sendable {
    /// Encrypted before use: from the bond when there is one, else by pairing (Just Works is enough).
    case encrypt
    /// Encrypted with a key paired with MITM protection (passkey or numeric comparison).
    case authenticate
    /// Encrypted from the bond when there is one; otherwise pair only when the device answers
    /// Insufficient Encryption or Authentication, then send the refused request once more.
    case auto

    /// What the link needs at once (nil for `auto`, which waits until the device asks).
    public var upfront: SecurityRequirement? {
        switch self {
        case .encrypt: .encrypted
        case .authenticate: .authenticated
        case .auto: nil
        }
    }

    /// The kernel path's `BT_SECURITY` level for a requirement.
    public static func kernelLevel(_ requirement: SecurityRequirement) -> L2CAPSecurityLevel {
        requirement == .authenticated ? .high : .medium
    }
}
