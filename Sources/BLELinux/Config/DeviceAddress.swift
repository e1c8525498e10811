public import BLEWire

extension BluetoothAddress {
    /// The accepted form of a device address on the command line.
    public static let acceptedForms =
        "six two-digit hex octets separated by ':', most significant first (AA:BB:CC:DD:EE:FF)"

    /// Parses `AA:BB:CC:DD:EE:FF` strictly (six two-digit hex octets and ':'), saying where it is wrong.
    public init(parsing text: some StringProtocol, type: AddressType) throws(ArgumentSyntaxError) {
        let text = String(text)
        func fail(_ position: Int, _ problem: String) -> ArgumentSyntaxError {
            ArgumentSyntaxError(
                what: "device address",
                text: text,
                position: position,
                problem: problem,
                acceptedForms: Self.acceptedForms
            )
        }
        let utf8 = Array(text.utf8)
        var value: UInt64 = 0
        for octet in 0..<6 {
            let start = octet * 3
            for offset in 0..<2 {
                let index = start + offset
                guard index < utf8.count else { throw fail(index + 1, "the address ends after \(octet) octets") }
                guard let digit = Self.hexDigit(utf8[index]) else {
                    throw fail(index + 1, "'\(Character(Unicode.Scalar(utf8[index])))' is not a hex digit")
                }
                value = value << 4 | UInt64(digit)
            }
            let separator = start + 2
            if octet < 5 {
                guard separator < utf8.count else {
                    throw fail(separator + 1, "the address ends after \(octet + 1) octets")
                }
                guard utf8[separator] == UInt8(ascii: ":") else {
                    throw fail(separator + 1, "expected ':' after octet \(octet + 1)")
                }
            } else if separator < utf8.count {
                throw fail(separator + 1, "unexpected characters after the sixth octet")
            }
        }
        self.init(value: value, type: type)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
