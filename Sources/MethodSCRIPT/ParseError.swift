/// A malformed reply line: where it is and why. Parsing resumes at the next line.
public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line number in the stream.
    public var line: Int
    /// 0-based byte offset in the stream of the offending byte.
    public var offset: Int
    /// 0-based column of the offending byte in its line.
    public var column: Int
    /// What is wrong with the line.
    public var reason: Reason

    /// An error at `line` (1-based), stream byte `offset` and `column` of that line (both 0-based).
    public init(line: Int, offset: Int, column: Int, reason: Reason) {
        self.line = line
        self.offset = offset
        self.column = column
        self.reason = reason
    }

    /// Why a reply line breaks the MethodSCRIPT reply grammar.
    public enum Reason: Hashable, Sendable {
        /// The line is longer than the limit (newline excluded); the kept raw line is its start.
        case lineTooLong(limit: Int)
        /// The first character starts no known reply line.
        case unknownLine(first: UInt8)
        /// A byte where the grammar allows other ones.
        case unexpectedByte(UInt8)
        /// The line ended inside a field.
        case truncated
        /// A `P` line without variables.
        case emptyPackage
        /// A variable type that is not two lowercase letters.
        case badVariableType
        /// A value that is not seven hex digits (or the `     nan` form).
        case badHexDigits
        /// The eighth value character is no SI prefix.
        case badPrefix(UInt8)
        /// A metadata token with the wrong number of hex digits.
        case badMetadata
        /// A loop or scan start that is not the letter and four hex digits.
        case badLoopStart
        /// An end marker (`*`, `-`, `+`) that does not close the innermost open scope.
        case unbalancedEnd(UInt8)
        /// Loops nested deeper than the parser tracks.
        case nestingTooDeep
        /// A scope was still open when the script ended (the empty line).
        case unclosedScope
        /// A version reply (`t…`) did not end with a `*` line within a few lines.
        case versionNotTerminated
        /// A line starts with `t` but names no device a version reply names (`tespico…`, `tes4_lr…`).
        case notAVersion
    }

    /// The location and the reason, the column counted from 1: `line 3, column 12 (byte 57): unexpected ','`.
    public var description: String {
        "line \(line), column \(column + 1) (byte \(offset)): \(reason)"
    }
}

extension ParseError.Reason: CustomStringConvertible {
    /// The reason in words, e.g. `value is not 7 hex digits`; bytes shown as characters when printable.
    public var description: String {
        switch self {
        case .lineTooLong(let limit): "line longer than \(limit) bytes"
        case .unknownLine(let first): "unknown reply line starting with \(Self.show(first))"
        case .unexpectedByte(let byte): "unexpected \(Self.show(byte))"
        case .truncated: "line ends inside a field"
        case .emptyPackage: "data package without variables"
        case .badVariableType: "variable type is not two lowercase letters"
        case .badHexDigits: "value is not 7 hex digits"
        case .badPrefix(let byte): "\(Self.show(byte)) is no SI prefix"
        case .badMetadata: "malformed metadata"
        case .badLoopStart: "loop start is not a letter and 4 hex digits"
        case .unbalancedEnd(let byte): "\(Self.show(byte)) does not close the innermost open scope"
        case .nestingTooDeep: "loops nested too deep"
        case .unclosedScope: "script ended with an open loop"
        case .versionNotTerminated: "version reply without its closing '*' line"
        case .notAVersion: "a line starting with 't' that is no version reply (no known device after it)"
        }
    }

    static func show(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
    }
}
