/// How a pairing authenticates, chosen from both sides' IO capabilities and flags (Core 5.4 Vol 3
/// Part H §2.3.5.1, Tables 2.6–2.8).
enum SMPPairingMethod: Equatable {
    case justWorks
    case numericComparison
    /// Passkey Entry: who types the six digits (`initiatorTypes`; when the responder types too, both do).
    case passkey(initiatorTypes: Bool, responderTypes: Bool)

    var isAuthenticated: Bool { self != .justWorks }

    typealias IO = PairingOptions.IOCapability

    /// The method for this central (initiator) and the peer (responder).
    static func choose(initiator: IO, responder: IO, mitm: Bool, secureConnections: Bool) -> SMPPairingMethod {
        guard mitm else { return .justWorks }
        if initiator == .noInputNoOutput || responder == .noInputNoOutput { return .justWorks }
        let initiatorDisplays = passkey(initiatorTypes: false, responderTypes: true)
        let responderDisplays = passkey(initiatorTypes: true, responderTypes: false)
        switch (responder, initiator) {
        case (.displayOnly, .displayOnly), (.displayOnly, .displayYesNo), (.displayYesNo, .displayOnly):
            return .justWorks
        case (.displayOnly, .keyboardOnly), (.displayOnly, .keyboardDisplay),
            (.displayYesNo, .keyboardOnly), (.keyboardDisplay, .keyboardOnly):
            return responderDisplays
        case (.displayYesNo, .displayYesNo):
            return secureConnections ? .numericComparison : .justWorks
        case (.displayYesNo, .keyboardDisplay), (.keyboardDisplay, .displayYesNo):
            return secureConnections
                ? .numericComparison : (responder == .displayYesNo ? responderDisplays : initiatorDisplays)
        case (.keyboardDisplay, .keyboardDisplay):
            return secureConnections ? .numericComparison : initiatorDisplays
        case (.keyboardOnly, .keyboardOnly):
            return .passkey(initiatorTypes: true, responderTypes: true)
        case (.keyboardOnly, _), (.keyboardDisplay, .displayOnly):
            return initiatorDisplays
        default:
            return .justWorks
        }
    }
}
