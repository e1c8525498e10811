/// A whitespace-separated word of a script line and its 1-based column.
struct ScriptToken {
    var text: ArraySlice<UInt8>
    var column: Int

    var string: String { String(decoding: text, as: UTF8.self) }

    /// Splits one script line (no newline) into tokens. `#` starts a comment outside quotes; a `"…"` string is
    /// one token including its quotes. A non-printable or non-ASCII byte is error 4004 at its column.
    static func split(_ line: ArraySlice<UInt8>, lineNumber: Int) throws(ScriptError) -> [ScriptToken] {
        var tokens: [ScriptToken] = []
        var index = line.startIndex
        func column(_ position: Int) -> Int { position - line.startIndex + 1 }
        while index < line.endIndex {
            let byte = line[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                index += 1
                continue
            }
            if byte == UInt8(ascii: "#") { break }
            let start = index
            if byte == UInt8(ascii: "\"") {
                index += 1
                while index < line.endIndex, line[index] != UInt8(ascii: "\"") {
                    guard isPrintable(line[index]) else {
                        throw ScriptError(ScriptErrorCode.unexpectedCharacter, line: lineNumber, column: column(index))
                    }
                    index += 1
                }
                guard index < line.endIndex else {
                    throw ScriptError(ScriptErrorCode.unexpectedCharacter, line: lineNumber, column: column(index))
                }
                index += 1
            } else {
                while index < line.endIndex, line[index] != UInt8(ascii: " "), line[index] != UInt8(ascii: "\t"),
                    line[index] != UInt8(ascii: "\r")
                {
                    guard isPrintable(line[index]) else {
                        throw ScriptError(ScriptErrorCode.unexpectedCharacter, line: lineNumber, column: column(index))
                    }
                    index += 1
                }
            }
            tokens.append(ScriptToken(text: line[start..<index], column: column(start)))
        }
        return tokens
    }

    static func isPrintable(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }
}

/// Parses MethodSCRIPT numeric literals: `[+-]digits[suffix]`, suffix one of `afpnum kMGTPE` or `i` (integer),
/// or `0x…`/`0b…` integers. There is no decimal point: `1.5` is refused, `1500m` is the way to write it.
/// Examples: `500m`, `-500m`, `10k`, `1M`, `11i`, `4`, `0x1Fi`.
enum ScriptLiteral {
    static let suffixes: [UInt8: Double] = [
        UInt8(ascii: "a"): 1e-18, UInt8(ascii: "f"): 1e-15, UInt8(ascii: "p"): 1e-12, UInt8(ascii: "n"): 1e-9,
        UInt8(ascii: "u"): 1e-6, UInt8(ascii: "m"): 1e-3, UInt8(ascii: "k"): 1e3, UInt8(ascii: "M"): 1e6,
        UInt8(ascii: "G"): 1e9, UInt8(ascii: "T"): 1e12, UInt8(ascii: "P"): 1e15, UInt8(ascii: "E"): 1e18,
    ]

    /// Whether a token is meant as a number (starts with a digit, sign or point).
    static func looksNumeric(_ token: ArraySlice<UInt8>) -> Bool {
        guard let first = token.first else { return false }
        return (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || first == UInt8(ascii: "-")
            || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
    }

    /// The value and whether it is an `i` integer; error 4004 at the first character that does not belong.
    static func parse(_ token: ScriptToken, line: Int) throws(ScriptError) -> (value: Double, isInteger: Bool) {
        let text = token.text
        var index = text.startIndex
        var negative = false
        if text[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        func failure(at position: Int) -> ScriptError {
            let what =
                position < text.endIndex && text[position] == UInt8(ascii: ".")
                ? "MethodSCRIPT numbers have no decimal point: write 1500m for 1.5"
                : "not a number: digits, then one of a f p n u m k M G T P E or i"
            return ScriptError(
                ScriptErrorCode.unexpectedCharacter,
                line: line,
                column: token.column + position - text.startIndex,
                detail: "\(String(decoding: text, as: UTF8.self)): \(what)"
            )
        }
        // 0x… and 0b… integers (with or without the i suffix).
        if text.count > 2, text[index] == UInt8(ascii: "0"),
            text[index + 1] == UInt8(ascii: "x") || text[index + 1] == UInt8(ascii: "b")
        {
            let radix = text[index + 1] == UInt8(ascii: "x") ? 16 : 2
            var end = text.endIndex
            if text[end - 1] == UInt8(ascii: "i") { end -= 1 }
            guard end > index + 2,
                let number = Int(String(decoding: text[(index + 2)..<end], as: UTF8.self), radix: radix)
            else { throw failure(at: index + 2) }
            return (Double(negative ? -number : number), true)
        }
        var mantissa = 0.0
        var digits = 0
        while index < text.endIndex {
            let byte = text[index]
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { break }
            mantissa = mantissa * 10 + Double(byte - UInt8(ascii: "0"))
            digits += 1
            index += 1
        }
        guard digits > 0 else { throw failure(at: index) }
        var value = mantissa
        var isInteger = false
        if index < text.endIndex {
            let suffix = text[index]
            if suffix == UInt8(ascii: "i") {
                isInteger = true
            } else if let factor = suffixes[suffix] {
                value *= factor
            } else {
                throw failure(at: index)
            }
            index += 1
            guard index == text.endIndex else { throw failure(at: index) }
        }
        return (negative ? -value : value, isInteger)
    }
}
