import MethodSCRIPT

/// Why a script was refused before sending.
public struct PicoScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What in the script the device would refuse or misread.
    public enum Reason: Sendable, Equatable {
        /// A byte of 0x80 or above (MethodSCRIPT is ASCII only).
        case notASCII(UInt8)
        /// A `\r`: lines must end with `\n` alone.
        case carriageReturn
        /// A line of `length` characters, more than the device's `limit` (`PicoScript.maximumLineLength`).
        case lineTooLong(length: Int, limit: Int)
        /// An empty line before the last script line: the device would end the script there.
        case emptyLineInside
        /// The framed script (`e` line and final empty line included) takes `bytes` bytes, more than `limit`.
        case tooLarge(bytes: Int, limit: Int)
        /// No script line at all: an empty text, only the `e` line, or only empty lines.
        case empty
        /// What `ScriptChecker` refuses (an unknown command, a wrong argument, a value out of the
        /// instrument's bounds, …): the first problem, the device's code for it, and how many more follow.
        case refused(message: String, code: String, more: Int)
    }

    /// 1-based line and column in the text as given; 0 when the error concerns the whole script.
    public let line: Int
    /// 1-based column of the offending byte (for `.lineTooLong`, the first one past the limit); 0 when
    /// `line` is.
    public let column: Int
    /// What is wrong.
    public let reason: Reason

    /// The place, when there is one, and the problem: `line 3, column 129: line of 140 characters exceeds 128`.
    public var description: String {
        let place = line > 0 ? "line \(line), column \(column): " : ""
        switch reason {
        case .notASCII(let byte):
            return place
                + "byte 0x\(String(byte, radix: 16, uppercase: true)) is not ASCII (MethodSCRIPT is ASCII only)"
        case .carriageReturn: return place + "carriage return: lines must end with LF only (no CR or CRLF)"
        case .lineTooLong(let length, let limit): return place + "line of \(length) characters exceeds \(limit)"
        case .emptyLineInside: return place + "empty line inside the script (the device would end the script there)"
        case .tooLarge(let bytes, let limit): return "script of \(bytes) bytes exceeds \(limit) bytes"
        case .empty: return "the script is empty"
        case .refused(let message, let code, let more):
            return place + "\(message) (!\(code))" + (more > 0 ? " (and \(more) more)" : "")
        }
    }
}

/// A MethodSCRIPT checked for what the device would refuse or misread, and framed for sending:
/// `e\n`, the lines, then the empty line that ends it.
///
/// The text may start with the `e` line and end with empty lines (as `.mscr` files do) or not; either
/// way `bytes` holds exactly one `e` line and one final empty line.
public struct PicoScript: Sendable, Equatable {
    /// Longest line the device accepts, newline excluded.
    public static let maximumLineLength = 128
    /// Default size limit of a script as sent.
    public static let defaultMaximumBytes = 16 * 1024

    /// The script lines, without `e` and without newlines.
    public let lines: [String]
    /// The line of the text as given that `lines[0]` was: 2 when the text starts with its own `e` line
    /// (the device counts from the first line after `e`, so its line N is the text's N + this − 1).
    public let firstLineNumber: Int
    /// What goes on the wire.
    public let bytes: [UInt8]
    /// The script's names for the values of each package it sends: one list per `pck_start … pck_end`
    /// block, in `pck_add` order (`[["p", "c", "f", "r"]]` for the SWV example).
    public let packageLayouts: [[String]]

    /// Checks `text` and frames it for sending.
    /// - Parameters:
    ///   - text: The script, with or without its own `e` line and trailing empty lines; lines end with `\n`.
    ///   - maximumBytes: The most bytes the framed script may take.
    ///   - checked: Whether `ScriptChecker` must accept it too (false sends a script the command table
    ///     does not know, for firmware newer than the table, at the user's word).
    /// - Throws: `PicoScriptError` for the first problem found: a `\r` or non-ASCII byte, no script line,
    ///   an empty line inside, a line over `maximumLineLength`, a framed script over `maximumBytes`, or
    ///   what the checker refuses.
    public init(
        _ text: String,
        maximumBytes: Int = PicoScript.defaultMaximumBytes,
        checked: Bool = true
    ) throws(PicoScriptError) {
        let raw = Array(text.utf8)
        var lines: [[UInt8]] = [[]]
        var column = 0
        for byte in raw {
            column += 1
            if byte == 0x0A {
                lines.append([])
                column = 0
                continue
            }
            if byte == 0x0D { throw PicoScriptError(line: lines.count, column: column, reason: .carriageReturn) }
            if byte >= 0x80 { throw PicoScriptError(line: lines.count, column: column, reason: .notASCII(byte)) }
            lines[lines.count - 1].append(byte)
        }
        // Errors name lines of the text as given; the device counts from the first line after `e`.
        var firstNumber = 1
        if lines.first == [UInt8(ascii: "e")] {
            lines.removeFirst()
            firstNumber = 2
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        guard !lines.isEmpty else { throw PicoScriptError(line: 0, column: 0, reason: .empty) }
        for (index, line) in lines.enumerated() {
            let number = index + firstNumber
            if line.isEmpty { throw PicoScriptError(line: number, column: 1, reason: .emptyLineInside) }
            if line.count > Self.maximumLineLength {
                throw PicoScriptError(
                    line: number,
                    column: Self.maximumLineLength + 1,
                    reason: .lineTooLong(length: line.count, limit: Self.maximumLineLength)
                )
            }
        }
        let problems = checked ? ScriptChecker.check(text) : []
        if let problem = problems.first {
            let count = problems.count
            throw PicoScriptError(
                line: problem.line,
                column: problem.column,
                reason: .refused(message: problem.message, code: problem.code.hex, more: count - 1)
            )
        }
        var bytes: [UInt8] = Array("e\n".utf8)
        for line in lines {
            bytes += line
            bytes.append(0x0A)
        }
        bytes.append(0x0A)
        guard bytes.count <= maximumBytes else {
            throw PicoScriptError(line: 0, column: 0, reason: .tooLarge(bytes: bytes.count, limit: maximumBytes))
        }
        self.lines = lines.map { String(decoding: $0, as: UTF8.self) }
        self.firstLineNumber = firstNumber
        self.bytes = bytes
        self.packageLayouts = Self.layouts(of: self.lines)
    }

    /// `names(forPackageOf:)` for every package length the script sends.
    var namesByPackageLength: [Int: [String]] {
        var table: [Int: [String]] = [:]
        for count in Set(packageLayouts.map(\.count)) { table[count] = names(forPackageOf: count) }
        return table
    }

    /// The `pck_add` names of every `pck_start … pck_end` block (unfinished blocks are left out).
    static func layouts(of lines: [String]) -> [[String]] {
        var layouts: [[String]] = []
        var current: [String]?
        for line in lines {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let command = words.first else { continue }
            switch command {
            case "pck_start": current = []
            case "pck_add" where words.count >= 2: current?.append(String(words[1]))
            case "pck_end":
                if let block = current { layouts.append(block) }
                current = nil
            default: break
            }
        }
        return layouts
    }

    /// The names for a package of `count` values: the one layout of that length (or several that
    /// agree); nil when no block or disagreeing blocks have that length.
    public func names(forPackageOf count: Int) -> [String]? {
        let matching = packageLayouts.filter { $0.count == count }
        guard let first = matching.first, matching.allSatisfy({ $0 == first }) else { return nil }
        return first
    }
}
