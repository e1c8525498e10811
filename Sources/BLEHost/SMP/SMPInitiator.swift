import BLEWire

/// One pairing run by this central as the initiator over a link's SMP channel (Core 5.4 Vol 3 Part H
/// §2.3–§2.4, §3.5–§3.6): the feature exchange, LE Secure Connections (Just Works, numeric comparison,
/// passkey entry) or LE legacy pairing (Just Works, passkey entry), encryption, then the keys the peer
/// distributes. Any failure sends Pairing Failed with the reason and throws it.
struct SMPInitiator {
    let link: HCIConnection
    let options: PairingOptions
    /// This host's and the peer's address: 7 octets each, the type octet first (f5, f6), and c1's parts.
    let initiatorAddress: BluetoothAddress
    let responderAddress: BluetoothAddress
    static let timeout: Duration = .seconds(30)

    /// Feature exchange results every phase needs.
    struct Features {
        var request: SMPPairingRequest
        var response: SMPPairingResponse
        var keySize: UInt8
        var secureConnections: Bool
        var method: SMPPairingMethod
    }

    func run() async throws(SecurityError) -> PairingOutcome {
        let features = try await exchangeFeatures()
        var bond: SecurityBond
        if features.secureConnections {
            bond = try await SecureConnectionsPairing(initiator: self, features: features).run()
        } else {
            bond = try await LegacyPairing(initiator: self, features: features).run()
        }
        let longTermKey = try await receiveDistributedKeys(features, into: &bond)
        let bothBond = features.request.authReq & features.response.authReq & 0x01 != 0
        return PairingOutcome(bond: bond, bonded: bothBond && (features.secureConnections || longTermKey))
    }

    // MARK: Phase 1

    private func exchangeFeatures() async throws(SecurityError) -> Features {
        let authReq: UInt8 =
            (options.bonding ? 0x01 : 0) | (options.requirement == .authenticated ? 0x04 : 0)
            | (options.secureConnections ? 0x08 : 0)
        let request = SMPPairingRequest(
            ioCapability: options.ioCapability.rawValue,
            oobDataFlag: 0,
            authReq: authReq,
            maxEncryptionKeySize: options.maxKeySize,
            initiatorKeyDistribution: 0,
            responderKeyDistribution: options.bonding ? 0x03 : 0  // EncKey (legacy LTK) and IdKey
        )
        try send(request)
        let response: SMPPairingResponse = try await receive()
        guard (7...16).contains(response.maxEncryptionKeySize) else {
            throw fail(
                .encryptionKeySize,
                "the peer offers a \(response.maxEncryptionKeySize)-octet key (7…16 allowed)"
            )
        }
        guard let responderIO = PairingOptions.IOCapability(rawValue: response.ioCapability) else {
            throw fail(.invalidParameters, "the peer's IO capability 0x\(hex2(response.ioCapability)) is not defined")
        }
        let secureConnections = options.secureConnections && response.authReq & 0x08 != 0
        let mitm = (authReq | response.authReq) & 0x04 != 0
        let method = SMPPairingMethod.choose(
            initiator: options.ioCapability,
            responder: responderIO,
            mitm: mitm,
            secureConnections: secureConnections
        )
        if options.requirement == .authenticated, !method.isAuthenticated {
            throw fail(
                .authenticationRequirements,
                "no pairing method protects against a man in the middle between this side's IO capability "
                    + "\(options.ioCapability.name) and the peer's \(responderIO.name)"
            )
        }
        return Features(
            request: request,
            response: response,
            keySize: min(options.maxKeySize, response.maxEncryptionKeySize),
            secureConnections: secureConnections,
            method: method
        )
    }

    // MARK: Phase 3

    /// The keys the peer distributes once the link is encrypted, in the order of §3.6.1; true when a
    /// legacy long-term key came.
    private func receiveDistributedKeys(
        _ features: Features,
        into bond: inout SecurityBond
    ) async throws(SecurityError) -> Bool {
        let keys = features.response.responderKeyDistribution & features.request.responderKeyDistribution
        var longTermKey = false
        if keys & 0x01 != 0, !features.secureConnections {
            longTermKey = true
            let information: SMPEncryptionInformation = try await receive()
            let identification: SMPCentralIdentification = try await receive()
            bond.longTermKey = information.longTermKey.reversed()
            bond.ediv = identification.ediv
            bond.rand = identification.rand
        }
        if keys & 0x02 != 0 {
            let information: SMPIdentityInformation = try await receive()
            let address: SMPIdentityAddressInformation = try await receive()
            bond.identityResolvingKey = information.identityResolvingKey.reversed()
            bond.identityAddress = BluetoothAddress(
                value: address.address.value,
                type: address.addressType == 0 ? .public : .random
            )
        }
        if keys & 0x04 != 0 {
            let _: SMPSigningInformation = try await receive()
        }
        return longTermKey
    }

    // MARK: Channel

    func send(_ command: some WireCodable) throws(SecurityError) {
        do throws(TransportError) {
            try link.sendSecurity(command)
        } catch {
            throw .host("SMP send failed: \(error)")
        }
    }

    /// The next command, which must be a `Command`; Pairing Failed from the peer throws its reason.
    /// A Security Request (the peer asking for the pairing already running) or a Keypress Notification
    /// is passed over.
    func receive<Command: WireCodable>(_: Command.Type = Command.self) async throws(SecurityError) -> Command {
        while true {
            guard let item = await link.securityInbox.next(timeout: Self.timeout) else { throw .timeout }
            guard case .command(let bytes) = item,
                bytes.first == SMPSecurityRequest.code || bytes.first == SMPPairingKeypressNotification.code
            else { return try decode(item) }
        }
    }

    private func decode<Command: WireCodable>(_ item: SecurityInboxItem) throws(SecurityError) -> Command {
        switch item {
        case .closed(let reason): throw .disconnected(reason: reason)
        case .command(let bytes):
            if let failed = try? SMPPairingFailed(bytes: bytes) { throw .rejectedByPeer(failed.reason) }
            do throws(DecodeError) {
                return try Command(bytes: bytes)
            } catch {
                let name = SMPCommand.table.first { $0.code == bytes.first }?.name ?? "an unknown SMP command"
                if bytes.first.map({ code in SMPCommand.table.contains { $0.code == code } }) != true {
                    throw fail(.commandNotSupported, "the peer sent \(name)")
                }
                throw fail(.invalidParameters, "the peer sent \(name) where \(Command.self) was due: \(error)")
            }
        }
    }

    /// Sends Pairing Failed and returns the error to throw.
    func fail(_ reason: SMPReason, _ why: String) -> SecurityError {
        try? send(SMPPairingFailed(reason: reason))
        return .failedHere(reason, why)
    }

    /// Encrypts the link with `key` (the STK or the LTK) and waits for Encryption Change.
    func encrypt(_ bond: SecurityBond) async throws(SecurityError) {
        try await link.startEncryption(bond)
    }

    /// 128 random bits from the system's generator (getrandom), most significant first.
    static func random128() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The six digits the person types (on this side, or on the peer after this side shows them).
    func passkey(typing: Bool) async throws(SecurityError) -> UInt32 {
        if typing {
            guard let enter = options.interaction.enterPasskey else {
                throw fail(.passkeyEntryFailed, "the peer shows a passkey and none was given here (--passkey)")
            }
            guard let value = await enter(), value <= 999_999 else {
                throw fail(.passkeyEntryFailed, "no passkey of six digits was entered")
            }
            return value
        }
        guard let show = options.interaction.showPasskey else {
            throw fail(.passkeyEntryFailed, "the peer wants to type a passkey and nothing here can show one")
        }
        var generator = SystemRandomNumberGenerator()
        let value = UInt32.random(in: 0...999_999, using: &generator)
        await show(value)
        return value
    }

    /// 56 bits for f5/f6: address type, then the address most significant first.
    static func addressField(_ address: BluetoothAddress) -> [UInt8] {
        [address.type == .public || address.type == .publicIdentity ? 0 : 1] + address.wireBytes.reversed()
    }

    /// A passkey as the 128-bit value TK (legacy) or ra/rb (Secure Connections) carry it.
    static func passkeyValue(_ passkey: UInt32) -> [UInt8] {
        [UInt8](repeating: 0, count: 12) + (0..<4).map { UInt8(truncatingIfNeeded: passkey >> (24 - 8 * $0)) }
    }
}

func hex2(_ value: UInt8) -> String { (value < 0x10 ? "0" : "") + String(value, radix: 16, uppercase: true) }
