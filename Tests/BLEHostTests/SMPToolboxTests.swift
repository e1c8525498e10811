import BLEHost
import BLEWire
import Crypto
import Testing

/// The sample data of Core 5.4 Vol 3 Part H Appendix D (and RFC 4493 §4 for AES-CMAC), octet for octet.
/// Values are written most significant octet first, as the specification prints them.
@Suite("SMP cryptographic toolbox against the specification's sample data")
struct SMPToolboxTests {
    @Test("AES-CMAC: RFC 4493 examples 1–4 (the specification's D.1)")
    func cmac() {
        let key = octets("2b7e1516 28aed2a6 abf71588 09cf4f3c")
        let message = octets(
            "6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51"
                + " 30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710"
        )
        #expect(SMPToolbox.cmac(key, []) == octets("bb1d6929 e9593728 7fa37d12 9b756746"))
        #expect(SMPToolbox.cmac(key, Array(message[0..<16])) == octets("070a16b4 6b4d4144 f79bdd9d d04a287c"))
        #expect(SMPToolbox.cmac(key, Array(message[0..<40])) == octets("dfa66747 de9ae630 30ca3261 1497c827"))
        #expect(SMPToolbox.cmac(key, message) == octets("51f0bebf 7e3b9d92 fc497417 79363cfe"))
    }

    @Test("P-256 ECDH: the sample key pairs give the sample DHKey from both sides")
    func ecdh() throws {
        let privateA = octets("3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd")
        let privateB = octets("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
        let publicA =
            octets("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
            + octets("dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b")
        let publicB =
            octets("1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190")
            + octets("4c55f33e 429dad37 7356703a 9ab85160 472d1130 e28e3676 5f89aff9 15b1214a")
        let dhKey = octets("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")
        let a = try P256.KeyAgreement.PrivateKey(rawRepresentation: privateA)
        let b = try P256.KeyAgreement.PrivateKey(rawRepresentation: privateB)
        #expect(Array(a.publicKey.x963Representation) == [0x04] + publicA)
        #expect(Array(b.publicKey.x963Representation) == [0x04] + publicB)
        let fromA = try a.sharedSecretFromKeyAgreement(with: .init(x963Representation: [0x04] + publicB))
        let fromB = try b.sharedSecretFromKeyAgreement(with: .init(x963Representation: [0x04] + publicA))
        #expect(fromA.withUnsafeBytes { Array($0) } == dhKey)
        #expect(fromB.withUnsafeBytes { Array($0) } == dhKey)
    }

    @Test("f4, f5, f6, g2 (D.2–D.5)")
    func secureConnectionsFunctions() {
        let u = octets("20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6")
        let v = octets("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd")
        let n1 = octets("d5cb8454 d177733e ffffb2ec 712baeab")
        let n2 = octets("a6e8e7cc 25a75f6e 216583f7 ff3dc4cf")
        let w = octets("ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698")
        let a1 = octets("00561237 37bfce")
        let a2 = octets("00a71370 2dcfc1")
        #expect(SMPToolbox.f4(u, v, n1, 0) == octets("f2c916f1 07a9bd1c f1eda1be a974872d"))
        let (macKey, ltk) = SMPToolbox.f5(w, n1, n2, a1, a2)
        #expect(macKey == octets("2965f176 a1084a02 fd3f6a20 ce636e20"))
        #expect(ltk == octets("69867911 69d7cd23 980522b5 94750a38"))
        let r = octets("12a3343b b453bb54 08da42d2 0c2d0fc8")
        #expect(
            SMPToolbox.f6(macKey, n1, n2, r, octets("010102"), a1, a2) == octets("e3c47398 9cd0e8c5 d26c0b09 da958f61")
        )
        #expect(SMPToolbox.g2(u, v, n1, n2) == 0x2F9E_D5BA)
        #expect(SMPToolbox.g2(u, v, n1, n2) % 1_000_000 == 0x2F9E_D5BA % 1_000_000)
    }

    @Test("c1 and s1, the legacy functions (§2.2.3, §2.2.4)")
    func legacyFunctions() {
        let zero = [UInt8](repeating: 0, count: 16)
        let confirm = SMPToolbox.c1(
            zero,
            octets("5783D521 56AD6F0E 6388274E C6702EE0"),
            preq: octets("07071000000101").reversed(),
            pres: octets("05000800000302").reversed(),
            iat: 1,
            ia: octets("A1A2A3A4A5A6"),
            rat: 0,
            ra: octets("B1B2B3B4B5B6")
        )
        #expect(confirm == octets("1e1e3fef 878988ea d2a74dc5 bef13b86"))
        let stk = SMPToolbox.s1(
            zero,
            octets("000F0E0D 0C0B0A09 11223344 55667788"),
            octets("01020304 05060708 99AABBCC DDEEFF00")
        )
        #expect(stk == octets("9a1fe1f0 e8b0f49b 5b4216ae 796da062"))
    }

    @Test("a bond's key for LE Enable Encryption: masked to the key size, least significant octet first")
    func encryptionKey() {
        let key = octets("00112233 44556677 8899aabb ccddeeff")
        let peer = BluetoothAddress(value: 0xF0_11_22_33_44_55, type: .random)
        let full = SecurityBond(peer: peer, longTermKey: key, authenticated: false, secureConnections: true)
        #expect(full.encryptionKey == key.reversed())
        let seven = SecurityBond(
            peer: peer,
            longTermKey: key,
            keySize: 7,
            authenticated: false,
            secureConnections: true
        )
        #expect(seven.encryptionKey == [0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99] + [UInt8](repeating: 0, count: 9))
        #expect(!"\(full)".lowercased().contains("8899aabb") && !"\(full)".lowercased().contains("88:99"))
    }
}

/// Hex digits (spaces ignored) to octets, in the order written.
func octets(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}
