/// A Bluetooth UUID: 16-, 32- or 128-bit, compared by its full 128-bit value.
///
/// A 16- or 32-bit UUID is shorthand for the Bluetooth Base UUID `00000000-0000-1000-8000-00805F9B34FB`
/// with the short value in its first 32 bits (Core 5.4 Vol 3 Part B §2.5.1), so `BluetoothUUID(0x2800)`
/// equals the 128-bit form `00002800-0000-1000-8000-00805F9B34FB`. On the wire a UUID is little-endian
/// (the last octet of the printed form first); ATT carries 2 or 16 octets, advertising data 2, 4 or 16.
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first 8 octets of the printed form, most significant first.
    public let high: UInt64
    /// The last 8 octets of the printed form.
    public let low: UInt64

    /// The Base UUID's high half without the short value, and its low half.
    @usableFromInline static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    @usableFromInline static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    @inlinable
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A 16-bit UUID over the Base UUID.
    @inlinable
    public init(_ uuid16: UInt16) { self.init(uuid32: UInt32(uuid16)) }

    /// A 32-bit UUID over the Base UUID.
    @inlinable
    public init(uuid32: UInt32) { self.init(high: UInt64(uuid32) << 32 | Self.baseHigh, low: Self.baseLow) }

    /// True when the value is a short UUID over the Base UUID.
    @inlinable public var isBaseDerived: Bool { low == Self.baseLow && high & 0xFFFF_FFFF == Self.baseHigh }

    /// The 16-bit form, when the UUID has one.
    @inlinable
    public var uuid16: UInt16? {
        guard isBaseDerived, high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// The 32-bit form, when the UUID has one (every 16-bit UUID has one too).
    @inlinable
    public var uuid32: UInt32? { isBaseDerived ? UInt32(truncatingIfNeeded: high >> 32) : nil }

    /// Octets on the wire in ATT: 2 when a 16-bit form exists, otherwise 16.
    @inlinable public var attWidth: Int { uuid16 == nil ? 16 : 2 }

    /// The 16 octets of the printed form, most significant first.
    public var bigEndianBytes: [UInt8] {
        (0..<16).map { index in
            let half = index < 8 ? high : low
            return UInt8(truncatingIfNeeded: half >> (8 * (7 - index % 8)))
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    /// `2800` for a 16-bit UUID, `0000FEED`-style 8 digits for a 32-bit one, otherwise the full
    /// `569A1101-B87F-490C-92CB-11BA5EA5167C` form.
    public var description: String {
        if let short = uuid16 { return Self.hex(UInt64(short), digits: 4) }
        if let short = uuid32 { return Self.hex(UInt64(short), digits: 8) }
        return [
            Self.hex(high >> 32, digits: 8), Self.hex(high >> 16 & 0xFFFF, digits: 4),
            Self.hex(high & 0xFFFF, digits: 4),
            Self.hex(low >> 48, digits: 4), Self.hex(low & 0xFFFF_FFFF_FFFF, digits: 12),
        ].joined(separator: "-")
    }

    static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

extension BluetoothUUID {
    /// Its name: the one `Specs/ble/uuids.csv` gives (the stack's and its devices' UUIDs, e.g. Laird
    /// VSP RX), else the Bluetooth SIG's for a 16-bit UUID (e.g. `Client Characteristic Configuration`).
    public var knownName: String? {
        if let named = Self.knownNames.first(where: { $0.uuid == self }) { return named.name }
        return uuid16.flatMap { AssignedNumbers.uuid($0)?.name }
    }
}
