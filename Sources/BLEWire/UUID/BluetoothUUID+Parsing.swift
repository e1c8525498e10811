extension BluetoothUUID {
    /// Parses `2A05`, `0x2A05`, `0000FEED` or the full 36-character form `569a1101-b87f-490c-92cb-11ba5ea5167c`
    /// (either case). Returns nil for anything else.
    public init?(_ text: some StringProtocol) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        switch digits.utf8.count {
        case 4, 8:
            guard let value = Self.parseHex(digits) else { return nil }
            self.init(uuid32: UInt32(value))
        case 36:
            let groups = digits.split(separator: "-", omittingEmptySubsequences: false)
            guard groups.map(\.utf8.count) == [8, 4, 4, 4, 12] else { return nil }
            guard let high = Self.parseHex(groups[0] + groups[1] + groups[2]),
                let low = Self.parseHex(groups[3] + groups[4])
            else { return nil }
            self.init(high: high, low: low)
        default:
            return nil
        }
    }

    /// Hex digits only (no sign, no prefix), up to 16 of them.
    static func parseHex(_ text: some StringProtocol) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in text.utf8 {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
