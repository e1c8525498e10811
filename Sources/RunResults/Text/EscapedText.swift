/// Bytes a device (or a damaged transcript) sent, as text that is safe on a terminal: printable ASCII
/// as it is, a backslash doubled, tab, CR and LF as `\t`, `\r`, `\n`, every other byte as `\xNN`, so
/// that garbage can never move the cursor, change colours or retitle the window.
public enum EscapedText {
    /// The bytes, escaped.
    public static func of(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x09: text += "\\t"
            case 0x0A: text += "\\n"
            case 0x0D: text += "\\r"
            case 0x20...0x7E: text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                text += "\\x" + (byte < 0x10 ? "0" : "") + hex
            }
        }
        return text
    }
}
