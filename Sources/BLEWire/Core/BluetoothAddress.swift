/// A 48-bit Bluetooth device address (BD_ADDR) with the type that says how to reach it.
///
/// `bytes` are in wire order (least significant octet first), as HCI and the kernel's `bdaddr_t`
/// hold them; `description` prints the usual most-significant-first `AA:BB:CC:DD:EE:FF` form.
public struct BluetoothAddress: Sendable, Hashable, CustomStringConvertible {
    /// The LE address types of HCI (Core 5.4 Vol 4 Part E §7.8.12, Peer_Address_Type).
    public enum AddressType: UInt8, Sendable, Hashable, CaseIterable {
        case `public` = 0x00
        case random = 0x01
        case publicIdentity = 0x02
        case randomIdentity = 0x03
    }

    /// The address as a 48-bit integer; its low byte is the first octet on the wire.
    public let value: UInt64
    public let type: AddressType

    public init(value: UInt64, type: AddressType = .public) {
        self.value = value & 0xFFFF_FFFF_FFFF
        self.type = type
    }

    /// Builds an address from six octets in wire order (least significant first).
    public init(wireBytes: some Collection<UInt8>, type: AddressType = .public) {
        precondition(wireBytes.count == 6, "a BD_ADDR has six octets")
        var value: UInt64 = 0
        for (index, byte) in wireBytes.enumerated() { value |= UInt64(byte) << (8 * index) }
        self.init(value: value, type: type)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (or with `-`): exactly six two-digit hex octets. Returns nil otherwise.
    public init?(_ text: some StringProtocol, type: AddressType = .public) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let octets = parts.count == 6 ? parts : text.split(separator: "-", omittingEmptySubsequences: false)
        guard octets.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in octets {
            guard part.utf8.count == 2, let octet = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(octet)
        }
        self.init(value: value, type: type)
    }

    /// The six octets in wire order (least significant first).
    public var wireBytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    public var description: String {
        (0..<6).reversed().map { index in
            let octet = UInt8(truncatingIfNeeded: value >> (8 * index))
            return (octet < 0x10 ? "0" : "") + String(octet, radix: 16, uppercase: true)
        }.joined(separator: ":")
    }
}
