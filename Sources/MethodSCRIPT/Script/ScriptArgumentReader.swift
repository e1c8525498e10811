/// Reads the arguments of one script command in order, throwing the device's error codes with the column of
/// the offending argument (or the end of the line when one is missing).
struct ScriptArgumentReader {
    var tokens: [ScriptToken]
    var position = 1
    let line: Int
    let lineLength: Int

    init(tokens: [ScriptToken], line: Int, lineLength: Int) {
        self.tokens = tokens
        self.line = line
        self.lineLength = lineLength
    }

    private var remaining: Int { tokens.count - position }

    mutating func next() throws(ScriptError) -> ScriptToken {
        guard position < tokens.count else {
            throw ScriptError(
                ScriptErrorCode.unexpectedCharacter,
                line: line,
                column: lineLength + 1,
                detail: "\(tokens[0].string): an argument is missing"
            )
        }
        defer { position += 1 }
        return tokens[position]
    }

    /// Whether the command uses its typed form (`set_autoranging ba min max`): three arguments left, the first
    /// a two-letter type.
    var peekIsVariableType: Bool {
        remaining == 3 && VariableType(code: tokens[position].string) != nil
    }

    mutating func variableType() throws(ScriptError) -> VariableType {
        let token = try next()
        guard let type = VariableType(code: token.string) else {
            throw ScriptError(
                ScriptErrorCode.badVariableType,
                line: line,
                column: token.column,
                detail: "\(token.string): a variable type is two lowercase letters (ba, da, …)"
            )
        }
        return type
    }

    mutating func comparison() throws(ScriptError) -> Comparison {
        let token = try next()
        guard let comparison = Comparison(token: token.text) else {
            throw ScriptError(ScriptErrorCode.unexpectedCharacter, line: line, column: token.column)
        }
        return comparison
    }

    mutating func quotedString() throws(ScriptError) -> [UInt8] {
        let token = try next()
        guard token.text.count >= 2, token.text.first == UInt8(ascii: "\""), token.text.last == UInt8(ascii: "\"")
        else {
            throw ScriptError(
                ScriptErrorCode.unexpectedCharacter,
                line: line,
                column: token.column,
                detail: "\(token.string): a string in double quotes is needed here"
            )
        }
        return Array(token.text.dropFirst().dropLast())
    }

    /// `name(n)` if present (`nscans(3)`): n must be a positive integer (4204 / 4207); another word is
    /// error 4008.
    mutating func optionalBlock(_ name: String) throws(ScriptError) -> Int? {
        guard position < tokens.count else { return nil }
        let token = try next()
        let prefix = Array("\(name)(".utf8)
        guard token.text.count > prefix.count + 1, token.text.starts(with: prefix),
            token.text.last == UInt8(ascii: ")")
        else {
            throw ScriptError(0x4008, line: line, column: token.column, detail: "\(token.string): not \(name)(…)")
        }
        let inner = ScriptToken(
            text: token.text.dropFirst(prefix.count).dropLast(),
            column: token.column + prefix.count
        )
        let (value, _) = try ScriptLiteral.parse(inner, line: line)
        guard value == value.rounded() else {
            throw ScriptError(
                ScriptErrorCode.badDatatype,
                line: line,
                column: inner.column,
                detail: "\(name): a whole number"
            )
        }
        guard value >= 1 else {
            throw ScriptError(
                ScriptErrorCode.mustBePositive,
                line: line,
                column: inner.column,
                detail: "\(name): at least 1"
            )
        }
        guard value <= 65535 else {
            throw ScriptError(
                ScriptErrorCode.outOfBounds,
                line: line,
                column: inner.column,
                detail: "\(name): at most 65535"
            )
        }
        return Int(value)
    }

    func expectEnd() throws(ScriptError) {
        if position < tokens.count {
            throw ScriptError(
                ScriptErrorCode.extraArgument,
                line: line,
                column: tokens[position].column,
                detail: "\(tokens[0].string) takes no more arguments (\(tokens[position].string))"
            )
        }
    }
}
