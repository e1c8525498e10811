public import BLEWire

/// The keys a pairing leaves for one peer: enough to encrypt the next connection without pairing again
/// (LE Enable Encryption with `ltk`, `ediv` and `rand`). Values are in the specification's order, most
/// significant octet first. `description` never prints a key.
public struct SecurityBond: Sendable, Hashable, CustomStringConvertible {
    /// The address the peer was connected at when it paired.
    public var peer: BluetoothAddress
    /// The long-term key (Secure Connections: from f5; legacy: the one the peer distributed).
    public var longTermKey: [UInt8]
    /// Encrypted Diversifier and Random Number that name the legacy key on the peer (0 for Secure Connections).
    public var ediv: UInt16
    /// The Random Number (Rand) that, with `ediv`, names a legacy key on the peer (0 for Secure Connections).
    public var rand: UInt64
    /// Negotiated encryption key size in octets (7…16).
    public var keySize: UInt8
    /// Paired with protection against a man in the middle (passkey or numeric comparison).
    public var authenticated: Bool
    /// LE Secure Connections (else LE legacy pairing).
    public var secureConnections: Bool
    /// The peer's identity (Identity Address Information) and Identity Resolving Key, when it sent them.
    public var identityAddress: BluetoothAddress?
    /// The peer's Identity Resolving Key (16 octets, most significant first), when it sent one.
    public var identityResolvingKey: [UInt8]?

    /// A bond from its parts; the defaults (EDIV and Rand 0, a 16-octet key) suit a Secure Connections key.
    public init(
        peer: BluetoothAddress,
        longTermKey: [UInt8],
        ediv: UInt16 = 0,
        rand: UInt64 = 0,
        keySize: UInt8 = 16,
        authenticated: Bool,
        secureConnections: Bool,
        identityAddress: BluetoothAddress? = nil,
        identityResolvingKey: [UInt8]? = nil
    ) {
        self.peer = peer
        self.longTermKey = longTermKey
        self.ediv = ediv
        self.rand = rand
        self.keySize = keySize
        self.authenticated = authenticated
        self.secureConnections = secureConnections
        self.identityAddress = identityAddress
        self.identityResolvingKey = identityResolvingKey
    }

    /// The key as LE Enable Encryption takes it: masked to `keySize` (the most significant octets
    /// zeroed, Core 5.4 Vol 3 Part H §2.3.4), least significant octet first.
    public var encryptionKey: [UInt8] {
        let kept = Int(min(16, max(7, keySize)))
        return longTermKey.enumerated().map { $0.offset < 16 - kept ? 0 : $0.element }.reversed()
    }

    /// What the bond's key gives a link it encrypts.
    public var encryption: LinkEncryption {
        LinkEncryption(keySize: keySize, authenticated: authenticated, secureConnections: secureConnections)
    }

    /// `Secure Connections, authenticated, 16-octet key` (no key material).
    public var level: String { encryption.level }

    /// `bond with <peer> (<level>)`; no key material.
    public var description: String { "bond with \(peer) (\(level))" }
}
