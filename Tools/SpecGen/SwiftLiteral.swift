/// Swift source text for the generators.
enum SwiftLiteral {
    /// A Swift string literal for `text`: backslashes, quotes, newlines and tabs escaped, other
    /// control characters (a stray `\r` from a table, say) written as `\u{…}` so that the literal
    /// always compiles.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
