// The fuzz build compiles BLEHost with swiftc alone, without swift-crypto (Tools/fuzz-ble.sh leaves out
// SMPToolbox.swift and SecureConnectionsPairing.swift). The receive path never starts a pairing by
// itself, so these stand-ins are never called; if one were, the harness would stop and say so.

enum SMPToolbox {
    static func c1(
        _ k: [UInt8],
        _ r: [UInt8],
        preq: [UInt8],
        pres: [UInt8],
        iat: UInt8,
        ia: [UInt8],
        rat: UInt8,
        ra: [UInt8]
    ) -> [UInt8] {
        fatalError("the fuzz build has no SMP cryptography")
    }

    static func s1(_ k: [UInt8], _ r1: [UInt8], _ r2: [UInt8]) -> [UInt8] {
        fatalError("the fuzz build has no SMP cryptography")
    }
}

struct SecureConnectionsPairing {
    let initiator: SMPInitiator
    let features: SMPInitiator.Features

    func run() async throws(SecurityError) -> SecurityBond {
        fatalError("the fuzz build has no SMP cryptography")
    }
}
