/// What this side of a pairing can do and wants (Core 5.4 Vol 3 Part H §2.3).
public struct PairingOptions: Sendable {
    /// The SMP IO Capability values (§3.5.1 Table 3.4).
    public enum IOCapability: UInt8, Sendable, Hashable {
        /// Can show six digits but take no input.
        case displayOnly = 0x00
        /// Can show six digits and take a yes or a no.
        case displayYesNo = 0x01
        /// Can take typed digits but show nothing.
        case keyboardOnly = 0x02
        /// Can neither show nor take anything: only Just Works is possible.
        case noInputNoOutput = 0x03
        /// Can show six digits and take typed ones.
        case keyboardDisplay = 0x04

        /// The specification's name, e.g. `KeyboardDisplay`.
        public var name: String {
            switch self {
            case .displayOnly: "DisplayOnly"
            case .displayYesNo: "DisplayYesNo"
            case .keyboardOnly: "KeyboardOnly"
            case .noInputNoOutput: "NoInputNoOutput"
            case .keyboardDisplay: "KeyboardDisplay"
            }
        }
    }

    /// Protection against a man in the middle is required: a pairing that can only be Just Works fails
    /// with Authentication Requirements.
    public var requirement: SecurityRequirement
    /// Ask the peer to keep the keys (bonding) and to distribute its identity.
    public var bonding = true
    /// Offer LE Secure Connections; pairing falls back to legacy when the peer does not.
    public var secureConnections = true
    /// This side's IO capability, sent in the Pairing Request; with the peer's it picks the pairing method.
    public var ioCapability: IOCapability
    /// 7…16 octets.
    public var maxKeySize: UInt8 = 16
    /// How a person takes part: supplies or shows a passkey, confirms a number.
    public var interaction: PairingInteraction

    /// By default: encryption with any key, no input or output (so Just Works), nobody to interact,
    /// bonding and Secure Connections offered, keys up to 16 octets.
    public init(
        requirement: SecurityRequirement = .encrypted,
        ioCapability: IOCapability = .noInputNoOutput,
        interaction: PairingInteraction = PairingInteraction()
    ) {
        self.requirement = requirement
        self.ioCapability = ioCapability
        self.interaction = interaction
    }
}

/// The person's part in a pairing, each nil when nobody can do it. Every closure may wait (a prompt on
/// a terminal); the pairing's 30 s SMP timer runs meanwhile, as for any peer.
public struct PairingInteraction: Sendable {
    /// The passkey the peer displays (or, when both sides have keyboards, the one typed on both): 0…999999,
    /// nil to give up (Passkey Entry Failed).
    public var enterPasskey: (@Sendable () async -> UInt32?)?
    /// Shows the passkey this side chose, for the person to type on the peer.
    public var showPasskey: (@Sendable (UInt32) async -> Void)?
    /// Numeric comparison: true when the six digits match what the peer shows.
    public var confirmNumber: (@Sendable (UInt32) async -> Bool)?

    /// Supplies the parts a person can play; the others stay nil.
    public init(
        enterPasskey: (@Sendable () async -> UInt32?)? = nil,
        showPasskey: (@Sendable (UInt32) async -> Void)? = nil,
        confirmNumber: (@Sendable (UInt32) async -> Bool)? = nil
    ) {
        self.enterPasskey = enterPasskey
        self.showPasskey = showPasskey
        self.confirmNumber = confirmNumber
    }

    /// A passkey or comparison number as people read it: six digits, leading zeros kept (`007864`).
    public static func digits(_ value: UInt32) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, 6 - text.count)) + text
    }

    /// A fixed passkey, as a module with a PIN set in its configuration (an HM-10's `AT+PASS`) needs.
    public static func passkey(_ value: UInt32) -> PairingInteraction {
        PairingInteraction(enterPasskey: { value })
    }
}
