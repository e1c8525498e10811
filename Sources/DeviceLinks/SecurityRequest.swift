import BLEHost
import BLELinux

/// What a link's security must be and how pairing may go: the mode, a passkey, where bonds are kept,
/// and who (if anyone) answers pairing's questions.
public struct SecurityRequest: Sendable {
    /// How secured the link must be.
    public let mode: SecurityMode
    /// The passkey the device shows or has set (an HM-10's `AT+PASS`), 0…999999.
    public let passkey: UInt32?
    /// Where the bond store of each controller lives.
    public let bondDirectory: String
    /// Pair even when a bond exists (on the kernel path the old bond is forgotten first: the kernel
    /// would encrypt with it instead of pairing).
    public var forcePairing: Bool
    /// Who answers pairing's questions (nil: nobody, as in a rig that runs unattended).
    public var prompter: (any PairingPrompter)?

    /// A request for `mode`, pairing with `passkey` when given, keeping bonds in `bondDirectory`.
    public init(
        mode: SecurityMode,
        passkey: UInt32? = nil,
        bondDirectory: String = BondStore.defaultDirectory,
        forcePairing: Bool = false,
        prompter: (any PairingPrompter)? = nil
    ) {
        self.mode = mode
        self.passkey = passkey
        self.bondDirectory = bondDirectory
        self.forcePairing = forcePairing
        self.prompter = prompter
    }

    /// The pairing this side offers: with a passkey it types that; with a prompter it can ask, show
    /// and confirm; otherwise it has no input or output (Just Works only).
    public func pairingOptions(_ requirement: SecurityRequirement) -> PairingOptions {
        if let passkey {
            return PairingOptions(requirement: requirement, ioCapability: .keyboardOnly, interaction: .passkey(passkey))
        }
        if let prompter {
            return PairingOptions(
                requirement: requirement,
                ioCapability: .keyboardDisplay,
                interaction: PairingInteraction(
                    enterPasskey: { await prompter.enterPasskey() },
                    showPasskey: { await prompter.show(passkey: $0) },
                    confirmNumber: { await prompter.confirm(number: $0) }
                )
            )
        }
        return PairingOptions(requirement: requirement, ioCapability: .noInputNoOutput)
    }
}
