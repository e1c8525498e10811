import BLEWire

/// Phase 2 of LE legacy pairing as initiator (Core 5.4 Vol 3 Part H §2.3.5.5, for BT 4.0/4.1 peers such
/// as the HM-10): TK (zero for Just Works, the passkey otherwise), the confirm and random exchange with
/// c1, and encryption with the short-term key from s1. The peer's long-term key follows in phase 3.
struct LegacyPairing {
    let initiator: SMPInitiator
    let features: SMPInitiator.Features

    func run() async throws(SecurityError) -> SecurityBond {
        var tk = [UInt8](repeating: 0, count: 16)
        if case .passkey(let typing, _) = features.method {
            tk = SMPInitiator.passkeyValue(try await initiator.passkey(typing: typing))
        }
        let ia = initiator.initiatorAddress
        let ra = initiator.responderAddress
        let confirm = { (random: [UInt8]) in
            SMPToolbox.c1(
                tk,
                random,
                preq: features.request.encodedBytes,
                pres: features.response.encodedBytes,
                iat: ia.type == .public ? 0 : 1,
                ia: ia.wireBytes.reversed(),
                rat: ra.type == .public ? 0 : 1,
                ra: ra.wireBytes.reversed()
            )
        }
        let mrand = SMPInitiator.random128()
        try initiator.send(SMPPairingConfirm(confirmValue: confirm(mrand).reversed()))
        let sconfirm: SMPPairingConfirm = try await initiator.receive()
        try initiator.send(SMPPairingRandom(randomValue: mrand.reversed()))
        let srand = Array(try await initiator.receive(SMPPairingRandom.self).randomValue.reversed())
        guard confirm(srand) == sconfirm.confirmValue.reversed() else {
            throw initiator.fail(.confirmValueFailed, "the peer's confirm value does not match: wrong passkey")
        }
        let shortTermKey = SecurityBond(
            peer: initiator.link.peer,
            longTermKey: SMPToolbox.s1(tk, srand, mrand),
            keySize: features.keySize,
            authenticated: features.method.isAuthenticated,
            secureConnections: false
        )
        try await initiator.encrypt(shortTermKey)
        return shortTermKey
    }
}
