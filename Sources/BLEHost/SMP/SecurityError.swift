public import BLEWire

/// Why pairing or encryption failed.
public enum SecurityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer sent Pairing Failed with this reason.
    case rejectedByPeer(SMPReason)
    /// This side ended the pairing with Pairing Failed: the reason sent and what went wrong.
    case failedHere(SMPReason, String)
    /// No SMP command came within 30 s (Core 5.4 Vol 3 Part H §3.4); no more pairing on this link.
    case timeout
    /// The controller or the peer refused encryption (Encryption Change status, or LE Enable Encryption's
    /// Command Status). `PIN or Key Missing` means the peer no longer holds the bond.
    case encryptionRefused(HCIStatus)
    /// No Encryption Change came within the command timeout.
    case encryptionTimeout
    /// The link ended during the procedure (HCI reason).
    case disconnected(reason: UInt8)
    /// Sending or the HCI command failed.
    case host(String)
    /// A pairing is already running on this link.
    case busy

    /// A one-line account, with a hint for the peer reasons people most often meet.
    public var description: String {
        switch self {
        case .rejectedByPeer(let reason): "pairing failed: the peer reported \(reason)\(Self.hint(reason))"
        case .failedHere(let reason, let why): "pairing failed: \(why) (sent Pairing Failed, \(reason))"
        case .timeout: "pairing failed: the peer did not answer within 30 s (SMP timeout)"
        case .encryptionRefused(let status) where status == .pinOrKeyMissing:
            "encryption refused: \(status): the peer no longer holds this bond (it was removed there); pair again"
        case .encryptionRefused(let status): "encryption refused: \(status)"
        case .encryptionTimeout: "encryption did not complete: no Encryption Change from the controller"
        case .disconnected(let reason):
            "the link ended during pairing or encryption (reason \(HCIStatus(rawValue: reason)))"
        case .host(let what): "pairing failed: \(what)"
        case .busy: "a pairing is already running on this link"
        }
    }

    /// True when the peer has forgotten the keys this side kept (encryption from a bond refused, or
    /// the link dropped for a MIC failure, which is what a mismatched key gives).
    public var isStaleBond: Bool {
        switch self {
        case .encryptionRefused(let status): status == .pinOrKeyMissing || status == .authenticationFailure
        case .disconnected(let reason): reason == HCIStatus.connectionTerminatedMICFailure.rawValue
        default: false
        }
    }

    private static func hint(_ reason: SMPReason) -> String {
        switch reason {
        case .passkeyEntryFailed: ": the passkey was not entered on the peer"
        case .confirmValueFailed: ": wrong passkey?"
        case .authenticationRequirements: ": the peer needs protection this side's IO capability cannot give"
        case .pairingNotSupported: ": the peer does not pair"
        default: ""
        }
    }
}
