/// Attribute values as text and text as values: hex both ways, and a value as one line of text.
public enum AttributeValueText {
    /// An attribute handle as it is printed: `0x` and four uppercase hex digits (`0x002A`).
    public static func handle(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Why a text is not hex; its description says where.
    public struct HexSyntaxError: Error, Sendable, CustomStringConvertible {
        /// What is wrong, and at which column.
        public let description: String
    }

    /// Parses hex bytes: `0102ff`, `01 02 ff`, `01:02:FF`, with or without a leading `0x`. The error
    /// names the first bad character's position (1-based).
    public static func parseHex(_ text: String, what: String = "VALUE") throws(HexSyntaxError) -> [UInt8] {
        var characters = Array(text.utf8)
        var offset = 0
        if characters.count >= 2, characters[0] == UInt8(ascii: "0"), characters[1] | 0x20 == UInt8(ascii: "x") {
            characters.removeFirst(2)
            offset = 2
        }
        var bytes: [UInt8] = []
        var high: UInt8?
        for (index, character) in characters.enumerated() {
            if character == UInt8(ascii: " ") || character == UInt8(ascii: ":") {
                if high != nil {
                    let column = index + offset + 1
                    throw HexSyntaxError(description: "\(what) '\(text)': odd hex digit before column \(column)")
                }
                continue
            }
            guard let digit = hexDigit(character) else {
                let column = index + offset + 1
                throw HexSyntaxError(
                    description: "\(what) '\(text)': column \(column) is not a hex digit (use --text for text)"
                )
            }
            if let first = high {
                bytes.append(first << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        if high != nil { throw HexSyntaxError(description: "\(what) '\(text)': an odd number of hex digits") }
        return bytes
    }

    private static func hexDigit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Lowercase hex, two digits a byte, nothing between them.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes as UTF-8 if they are valid UTF-8, else nil.
    public static func utf8(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// The bytes as one line of text: UTF-8, with control characters, backslashes and bytes that are
    /// not UTF-8 escaped (`\n`, `\r`, `\t`, `\\`, `\xNN`).
    public static func line(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            guard let (scalar, length) = scalar(in: bytes, at: index) else {
                out += "\\x" + hex([bytes[index]])
                index += 1
                continue
            }
            index += length
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\x" + hex([UInt8(scalar.value)])
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The UTF-8 scalar starting at `index` and its length, or nil if the bytes there are not one.
    private static func scalar(in bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
        guard length > 0, index + length <= bytes.count else { return nil }
        guard let text = String(validating: bytes[index..<index + length], as: UTF8.self),
            let scalar = text.unicodeScalars.first
        else { return nil }
        return (scalar, length)
    }

    /// Writes `text` to standard output at once and flushes it (one `write(2)`), so that a reader of
    /// a pipe sees every line as it is made. A reader that left (`EPIPE`) stops the command as a
    /// closed output.
}
