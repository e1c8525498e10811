import BLEWire
import Crypto

/// Phase 2 of LE Secure Connections as initiator (Core 5.4 Vol 3 Part H §2.3.5.6): P-256 public keys,
/// authentication stage 1 (Just Works / numeric comparison, or twenty passkey rounds), the DHKey checks,
/// then encryption with the LTK from f5.
struct SecureConnectionsPairing {
    let initiator: SMPInitiator
    let features: SMPInitiator.Features

    func run() async throws(SecurityError) -> SecurityBond {
        let key = P256.KeyAgreement.PrivateKey()
        let point = Array(key.publicKey.x963Representation)  // 0x04 || X || Y, most significant first
        let pkaX = Array(point[1..<33])
        try initiator.send(SMPPairingPublicKey(publicKeyX: pkaX.reversed(), publicKeyY: point[33..<65].reversed()))
        let peerKey: SMPPairingPublicKey = try await initiator.receive()
        let pkbX = Array(peerKey.publicKeyX.reversed())
        let pkbY = Array(peerKey.publicKeyY.reversed())
        guard pkbX != pkaX else { throw initiator.fail(.invalidParameters, "the peer sent this side's own public key") }
        let dhKey: [UInt8]
        do {
            let peerPublic = try P256.KeyAgreement.PublicKey(x963Representation: [0x04] + pkbX + pkbY)
            dhKey = try key.sharedSecretFromKeyAgreement(with: peerPublic).withUnsafeBytes { Array($0) }
        } catch {
            throw initiator.fail(.dhKeyCheckFailed, "the peer's public key is not a point on P-256")
        }
        let (na, nb, r) = try await authenticate(pkaX: pkaX, pkbX: pkbX)
        let a = SMPInitiator.addressField(initiator.initiatorAddress)
        let b = SMPInitiator.addressField(initiator.responderAddress)
        let (macKey, ltk) = SMPToolbox.f5(dhKey, na, nb, a, b)
        let request = features.request
        let response = features.response
        let ea = SMPToolbox.f6(macKey, na, nb, r, [request.authReq, request.oobDataFlag, request.ioCapability], a, b)
        try initiator.send(SMPPairingDHKeyCheck(dhKeyCheck: ea.reversed()))
        let eb: SMPPairingDHKeyCheck = try await initiator.receive()
        let expected = SMPToolbox.f6(
            macKey,
            nb,
            na,
            r,
            [response.authReq, response.oobDataFlag, response.ioCapability],
            b,
            a
        )
        guard eb.dhKeyCheck.reversed() == expected else {
            throw initiator.fail(.dhKeyCheckFailed, "the peer's DHKey check value does not match")
        }
        let bond = SecurityBond(
            peer: initiator.link.peer,
            longTermKey: ltk,
            keySize: features.keySize,
            authenticated: features.method.isAuthenticated,
            secureConnections: true
        )
        try await initiator.encrypt(bond)
        return bond
    }

    /// Authentication stage 1: the nonces both sides end with and r (ra = rb) for f6.
    private func authenticate(
        pkaX: [UInt8],
        pkbX: [UInt8]
    ) async throws(SecurityError) -> (na: [UInt8], nb: [UInt8], r: [UInt8]) {
        switch features.method {
        case .justWorks, .numericComparison:
            let cb: SMPPairingConfirm = try await initiator.receive()
            let na = SMPInitiator.random128()
            try initiator.send(SMPPairingRandom(randomValue: na.reversed()))
            let nb = Array(try await initiator.receive(SMPPairingRandom.self).randomValue.reversed())
            guard SMPToolbox.f4(pkbX, pkaX, nb, 0) == cb.confirmValue.reversed() else {
                throw initiator.fail(.confirmValueFailed, "the peer's confirm value does not match its random value")
            }
            if features.method == .numericComparison {
                let number = SMPToolbox.g2(pkaX, pkbX, na, nb) % 1_000_000
                let digits = PairingInteraction.digits(number)
                guard let confirm = initiator.options.interaction.confirmNumber else {
                    throw initiator.fail(.numericComparisonFailed, "nothing here can confirm the number \(digits)")
                }
                guard await confirm(number) else {
                    throw initiator.fail(.numericComparisonFailed, "the number \(digits) was not confirmed")
                }
            }
            return (na, nb, [UInt8](repeating: 0, count: 16))
        case .passkey(let typing, _):
            let passkey = try await initiator.passkey(typing: typing)
            var na: [UInt8] = []
            var nb: [UInt8] = []
            for bit in 0..<20 {
                let z: UInt8 = 0x80 | UInt8(truncatingIfNeeded: passkey >> bit & 1)
                na = SMPInitiator.random128()
                try initiator.send(SMPPairingConfirm(confirmValue: SMPToolbox.f4(pkaX, pkbX, na, z).reversed()))
                let cb: SMPPairingConfirm = try await initiator.receive()
                try initiator.send(SMPPairingRandom(randomValue: na.reversed()))
                nb = Array(try await initiator.receive(SMPPairingRandom.self).randomValue.reversed())
                guard SMPToolbox.f4(pkbX, pkaX, nb, z) == cb.confirmValue.reversed() else {
                    throw initiator.fail(
                        .confirmValueFailed,
                        "the peer's confirm value for passkey bit \(bit + 1) does not match: wrong passkey"
                    )
                }
            }
            return (na, nb, SMPInitiator.passkeyValue(passkey))
        }
    }
}
