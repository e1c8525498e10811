import BLEWire

/// What protects a link: set when an Encryption Change reports success for a key this host gave.
public struct LinkEncryption: Sendable, Hashable {
    /// The encryption key size in octets (7…16).
    public var keySize: UInt8
    /// Whether the key comes from a pairing protected against a man in the middle (passkey or numeric
    /// comparison).
    public var authenticated: Bool
    /// Whether the key comes from LE Secure Connections rather than LE legacy pairing.
    public var secureConnections: Bool

    /// Describes a link's encryption.
    public init(keySize: UInt8, authenticated: Bool, secureConnections: Bool) {
        self.keySize = keySize
        self.authenticated = authenticated
        self.secureConnections = secureConnections
    }

    /// `Secure Connections, authenticated, 16-octet key`.
    public var level: String {
        (secureConnections ? "Secure Connections" : "legacy")
            + (authenticated ? ", authenticated" : ", unauthenticated") + ", \(keySize)-octet key"
    }
}

/// What the link's SMP channel hands the pairing task.
enum SecurityInboxItem: Sendable {
    case command([UInt8])
    case closed(UInt8)
}

extension HCIConnection {
    /// The link's encryption, nil while it is not encrypted.
    public var encryption: LinkEncryption? { state.withLock { $0.encryption } }

    /// The authentication requirements of the last Security Request the peer sent (nil: none).
    public var securityRequest: UInt8? { state.withLock { $0.securityRequest } }

    /// Whether the link already meets `requirement`.
    public func meets(_ requirement: SecurityRequirement) -> Bool {
        guard let encryption else { return false }
        return requirement == .encrypted || encryption.authenticated
    }

    /// Pairs with the peer as initiator (Core 5.4 Vol 3 Part H) and leaves the link encrypted. The result
    /// says whether the peer distributed keys that can encrypt a later connection (`bonded`); store the
    /// bond then, and give it to `startEncryption` next time instead of pairing again.
    public func pair(_ options: PairingOptions) async throws(SecurityError) -> PairingOutcome {
        let own: BluetoothAddress? = host.state.withLock { state in
            state.controller.map { BluetoothAddress(value: $0.ownAddress.value, type: $0.ownAddress.type) }
        }
        guard let own else { throw .host("the host is not initialised") }
        let started = state.withLock { state -> Bool in
            guard !state.pairing, state.disconnectReason == nil else { return false }
            state.pairing = true
            return true
        }
        guard started else { throw disconnectReason.map { .disconnected(reason: $0) } ?? .busy }
        securityInbox.clear()
        defer { state.withLock { $0.pairing = false } }
        let initiator = SMPInitiator(link: self, options: options, initiatorAddress: own, responderAddress: peer)
        return try await initiator.run()
    }

    /// Encrypts the link with a bond's key (LE Enable Encryption) and waits for Encryption Change.
    /// `.encryptionRefused(PIN or Key Missing)` (or a MIC failure disconnect) means the peer lost the bond.
    public func startEncryption(_ bond: SecurityBond) async throws(SecurityError) {
        let key = bond.encryption
        let attempt = state.withLock { state -> UInt64 in
            state.encryptionAttempts += 1
            state.encryptionPending = (key, state.encryptionAttempts)
            state.encryptionResult = nil
            return state.encryptionAttempts
        }
        do throws(HCIHostError) {
            try await host.sendExpectingStatus(
                HCILEEnableEncryption(
                    connectionHandle: handle,
                    randomNumber: bond.rand,
                    encryptedDiversifier: bond.ediv,
                    longTermKey: bond.encryptionKey
                )
            )
        } catch {
            state.withLock { $0.encryptionPending = nil }
            switch error {
            case .commandFailed(_, let status): throw .encryptionRefused(status)
            case .disconnected(let reason): throw .disconnected(reason: reason)
            default: throw .host("LE Enable Encryption: \(error)")
            }
        }
        let timeout = host.configuration.commandTimeout * 5
        // A wake of the host's clock; it expires this attempt only, so a late one is harmless.
        host.clock.wake(at: host.clock.now + timeout) { [weak self] in self?.expireEncryption(attempt) }
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<HCIStatus?, Never>) in
            let ready = state.withLock { state -> HCIStatus?? in
                if let result = state.encryptionResult {
                    state.encryptionResult = nil
                    state.encryptionPending = nil
                    return .some(result)
                }
                if state.encryptionPending == nil { return .some(nil) }
                state.encryptionWaiter = Boxed(continuation)
                return .none
            }
            if case .some(let result) = ready { continuation.resume(returning: result) }
        }
        guard let status else {
            if let reason = disconnectReason { throw .disconnected(reason: reason) }
            throw .encryptionTimeout
        }
        guard status == .success else { throw .encryptionRefused(status) }
    }

    /// Encryption Change or Encryption Key Refresh Complete for this link (reader thread).
    func encryptionChanged(status: HCIStatus, enabled: Bool) {
        state.withLock { state in
            if status == .success, let pending = state.encryptionPending {
                state.encryption = enabled ? pending.key : nil
            } else if status == .success, !enabled {
                state.encryption = nil
            }
        }
        finishEncryption(status)
    }

    /// Ends the wait of `startEncryption` (nil: the link is gone).
    func finishEncryption(_ status: HCIStatus?) {
        let waiter = state.withLock { state -> CheckedContinuation<HCIStatus?, Never>? in
            guard state.encryptionPending != nil else { return nil }
            guard let waiter = state.encryptionWaiter else {
                if let status { state.encryptionResult = status } else { state.encryptionPending = nil }
                return nil
            }
            state.encryptionWaiter = nil
            state.encryptionPending = nil
            return waiter.value
        }
        waiter?.resume(returning: status)
    }

    private func expireEncryption(_ attempt: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<HCIStatus?, Never>? in
            guard state.encryptionPending?.id == attempt, let waiter = state.encryptionWaiter else { return nil }
            state.encryptionWaiter = nil
            state.encryptionPending = nil
            return waiter.value
        }
        waiter?.resume(returning: nil)
    }

    /// One SMP command from the peer (reader thread): to the running pairing, else answered here.
    func receiveSecurity(_ payload: UnsafeRawBufferPointer) {
        let bytes = Array(payload)
        if state.withLock({ $0.pairing }) { return securityInbox.push(.command(bytes)) }
        guard let code = bytes.first else { return }
        switch code {
        case SMPSecurityRequest.code where bytes.count == 2:
            state.withLock { $0.securityRequest = bytes[1] }
            host.diagnose("\(self): the peer asks for security (authentication requirements 0x\(hex2(bytes[1])))")
        case SMPPairingRequest.code:
            // Pairing as the responder is not offered.
            try? sendSecurity(SMPPairingFailed(reason: .pairingNotSupported))
        case let code where !SMPCommand.table.contains(where: { $0.code == code }):
            try? sendSecurity(SMPPairingFailed(reason: .commandNotSupported))
        default:
            break  // a pairing command with no pairing running: nothing to answer
        }
    }

    /// Sends one SMP command on CID 6.
    func sendSecurity(_ command: some WireCodable) throws(TransportError) {
        try command.encodedBytes.withTypedBytes { (bytes) throws(TransportError) in
            try host.sendL2CAP(handle: handle, channel: 0x0006, bytes)
        }
    }
}

/// What `HCIConnection.pair` leaves: the keys, and whether they outlive this connection.
public struct PairingOutcome: Sendable {
    /// The keys now encrypting the link.
    public let bond: SecurityBond
    /// The peer distributed a long-term key (legacy) or the pairing asked for bonding (Secure
    /// Connections): `bond` can encrypt a later connection.
    public let bonded: Bool
}
