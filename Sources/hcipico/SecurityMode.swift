import ArgumentParser
import BLEHost
import BLELinux
import PicoLink

/// `--security`: how secured a link must be before it is used.
enum SecurityMode: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// Encrypted before use: from the bond when there is one, else by pairing (Just Works is enough).
    case encrypt
    /// Encrypted with a key paired with MITM protection (passkey or numeric comparison).
    case authenticate
    /// Encrypted from the bond when there is one; otherwise pair only when the device answers
    /// Insufficient Encryption or Authentication, then send the refused request once more.
    case auto

    /// What the link needs at once (nil for `auto`, which waits until the device asks).
    var upfront: SecurityRequirement? {
        switch self {
        case .encrypt: .encrypted
        case .authenticate: .authenticated
        case .auto: nil
        }
    }

    /// The kernel path's `BT_SECURITY` level for a requirement.
    static func kernelLevel(_ requirement: SecurityRequirement) -> L2CAPSecurityLevel {
        requirement == .authenticated ? .high : .medium
    }
}

/// What `--security`, `--passkey` and `--bonds` (or a rig device's `security` and `passkey`) ask of a link.
struct SecurityRequest: Sendable {
    let mode: SecurityMode
    /// The passkey the device shows or has set (an HM-10's `AT+PASS`), 0…999999.
    let passkey: UInt32?
    /// Where the bond store of each controller lives.
    let bondDirectory: String
    /// Pair even when a bond exists (`hcipico pair`).
    var forcePairing = false
    /// A person may be asked on the terminal (not for the rig, which runs unattended).
    var interactive = true

    /// The pairing this side offers: with a passkey it types that; on a terminal it can prompt, show
    /// and confirm; otherwise it has no input or output (Just Works only).
    func pairingOptions(_ requirement: SecurityRequirement) -> PairingOptions {
        if let passkey {
            return PairingOptions(requirement: requirement, ioCapability: .keyboardOnly, interaction: .passkey(passkey))
        }
        if interactive, PairingPrompt.isAvailable {
            return PairingOptions(
                requirement: requirement,
                ioCapability: .keyboardDisplay,
                interaction: PairingPrompt.interaction
            )
        }
        return PairingOptions(requirement: requirement, ioCapability: .noInputNoOutput)
    }
}

/// The hint an insufficient-security refusal gets when no `--security` was given.
enum SecurityHint {
    static func suffix(for error: GATTError, mode: SecurityMode?) -> String {
        guard case .att(let refusal) = error, refusal.code.asksForSecurity else { return "" }
        guard mode == nil else { return "" }
        let level = refusal.code == .insufficientAuthentication ? "authenticate" : "encrypt"
        return "; the device wants a secured link: add --security auto (or --security \(level))"
    }
}

extension SecurityHint {
    static func suffix(for error: PicoSessionError, mode: SecurityMode?) -> String {
        if case .gatt(let refusal) = error { return suffix(for: refusal, mode: mode) }
        return ""
    }
}
