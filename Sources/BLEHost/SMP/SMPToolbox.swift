import Crypto
import _CryptoExtras

/// The Security Manager's cryptographic toolbox (Core 5.4 Vol 3 Part H §2.2): the security function e,
/// AES-CMAC, the LE Secure Connections functions f4, f5, f6, g2 and the legacy functions c1, s1.
///
/// Every value here is written as the specification writes it, most significant octet first; the wire
/// carries the same values least significant octet first (`SMPValue.wire`). The sample data of the
/// specification's appendix D checks each function octet for octet (`SMPToolboxTests`).
public enum SMPToolbox {
    /// e(key, plaintext): AES-128 of one block (§2.2.1).
    public static func e(_ key: [UInt8], _ plaintext: [UInt8]) -> [UInt8] {
        precondition(key.count == 16 && plaintext.count == 16, "e takes a 128-bit key and block")
        var block = plaintext
        do {
            try AES.permute(&block, key: SymmetricKey(data: key))
        } catch {
            preconditionFailure("AES-128 of a 16-octet block with a 16-octet key cannot fail: \(error)")
        }
        return block
    }

    /// AES-CMAC_key(message) (RFC 4493, §2.2.5).
    public static func cmac(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let zero = [UInt8](repeating: 0, count: 16)
        let k1 = doubled(e(key, zero))
        let k2 = doubled(k1)
        let blocks = max(1, (message.count + 15) / 16)
        let complete = !message.isEmpty && message.count % 16 == 0
        var state = zero
        for index in 0..<blocks - 1 {
            state = e(key, xor(state, Array(message[index * 16..<index * 16 + 16])))
        }
        var last = Array(message[(blocks - 1) * 16..<message.count])
        if complete {
            last = xor(last, k1)
        } else {
            last.append(0x80)
            last += [UInt8](repeating: 0, count: 16 - last.count)
            last = xor(last, k2)
        }
        return e(key, xor(state, last))
    }

    /// f4(U, V, X, Z) = AES-CMAC_X(U || V || Z): the Secure Connections confirm value (§2.2.6).
    public static func f4(_ u: [UInt8], _ v: [UInt8], _ x: [UInt8], _ z: UInt8) -> [UInt8] {
        cmac(x, u + v + [z])
    }

    /// f5(W, N1, N2, A1, A2) → (MacKey, LTK): the Secure Connections key generation (§2.2.7). A1 and
    /// A2 are 56 bits: the address type octet, then the address.
    public static func f5(
        _ w: [UInt8],
        _ n1: [UInt8],
        _ n2: [UInt8],
        _ a1: [UInt8],
        _ a2: [UInt8]
    ) -> (macKey: [UInt8], ltk: [UInt8]) {
        let salt: [UInt8] = [
            0x6C, 0x88, 0x83, 0x91, 0xAA, 0xF5, 0xA5, 0x38, 0x60, 0x37, 0x0B, 0xDB, 0x5A, 0x60, 0x83, 0xBE,
        ]
        let t = cmac(salt, w)
        let keyID: [UInt8] = [0x62, 0x74, 0x6C, 0x65]  // "btle"
        let tail = keyID + n1 + n2 + a1 + a2 + [0x01, 0x00]
        return (cmac(t, [0x00] + tail), cmac(t, [0x01] + tail))
    }

    /// f6(W, N1, N2, R, IOcap, A1, A2): the DHKey check value (§2.2.8).
    public static func f6(
        _ w: [UInt8],
        _ n1: [UInt8],
        _ n2: [UInt8],
        _ r: [UInt8],
        _ ioCap: [UInt8],
        _ a1: [UInt8],
        _ a2: [UInt8]
    ) -> [UInt8] {
        cmac(w, n1 + n2 + r + ioCap + a1 + a2)
    }

    /// g2(U, V, X, Y) mod 2^32: the numeric comparison value (§2.2.9); shown as `g2 % 1_000_000`.
    public static func g2(_ u: [UInt8], _ v: [UInt8], _ x: [UInt8], _ y: [UInt8]) -> UInt32 {
        let mac = cmac(x, u + v + y)
        return mac[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// c1: the legacy confirm value (§2.2.3). `preq` and `pres` are the Pairing Request and Response as
    /// sent (code first); `ia`/`ra` the initiator's and responder's addresses, most significant first.
    public static func c1(
        _ k: [UInt8],
        _ r: [UInt8],
        preq: [UInt8],
        pres: [UInt8],
        iat: UInt8,
        ia: [UInt8],
        rat: UInt8,
        ra: [UInt8]
    ) -> [UInt8] {
        let p1 = pres.reversed() + preq.reversed() + [rat, iat]
        let p2 = [0, 0, 0, 0] + ia + ra
        return e(k, xor(e(k, xor(r, p1)), p2))
    }

    /// s1(k, r1, r2) = e(k, r1' || r2'), the low 64 bits of each: the legacy short-term key (§2.2.4).
    public static func s1(_ k: [UInt8], _ r1: [UInt8], _ r2: [UInt8]) -> [UInt8] {
        e(k, Array(r1[8..<16]) + Array(r2[8..<16]))
    }

    static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }

    /// The subkey step of RFC 4493 §2.3: shift left one bit, xor 0x87 into the last octet on carry.
    private static func doubled(_ value: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 16)
        var carry: UInt8 = 0
        for index in stride(from: 15, through: 0, by: -1) {
            result[index] = value[index] << 1 | carry
            carry = value[index] >> 7
        }
        if carry == 1 { result[15] ^= 0x87 }
        return result
    }
}
