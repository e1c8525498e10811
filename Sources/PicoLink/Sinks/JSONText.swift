/// JSON text for the JSON Lines the sinks and the command line write.
///
/// Hand-written rather than `JSONEncoder`: the files keep a fixed key order (`event` first on the start
/// and end lines, `device` first on a value), which `JSONEncoder` cannot give (its keys come unordered or
/// sorted alphabetically).
public enum JSONText {
    /// A JSON string literal: quoted, escaped as RFC 8259 requires (control characters as `\u00XX`).
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
