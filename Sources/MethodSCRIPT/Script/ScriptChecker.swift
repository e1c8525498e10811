/// Checks any MethodSCRIPT before it is sent, with the command table of `Specs/methodscript/commands.csv`
/// and the instrument's limits: unknown commands, wrong argument counts or types, undeclared variables,
/// unbalanced loops and packages, numbers out of the EmStat Pico's bounds and commands only other
/// instruments have (the galvanostat's), each located.
public enum ScriptChecker {
    /// One problem, located in the text as given.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The 1-based line of the text as given (the `e` line, when there is one, is line 1).
        public let line: Int
        /// The 1-based column.
        public let column: Int
        /// The device's error code for it.
        public let code: DeviceErrorCode
        /// What is wrong, in words.
        public let message: String

        /// `line 4, column 27: meas_loop_lsv end = 3 (3 V): must be from -1.7 V to 2 V (!4205)`.
        public var description: String { "line \(line), column \(column): \(message) (!\(code.hex))" }
    }

    /// Every problem in `text`, a script with or without its own `e` line and final empty line; empty
    /// when the device would take it. After a line with a problem the check goes on with the next one.
    public static func check(_ text: String) -> [Problem] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8)[...] }
        var offset = 0
        if lines.first == [UInt8(ascii: "e")] {
            lines.removeFirst()
            offset = 1
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        var problems: [Problem] = []
        var parser = ScriptParser()
        func record(_ error: ScriptError) {
            problems.append(
                Problem(
                    line: error.line + offset,
                    column: error.column,
                    code: DeviceErrorCode(rawValue: error.code),
                    message: error.message
                )
            )
        }
        for (index, line) in lines.enumerated() {
            do throws(ScriptError) {
                try parser.parseLine(line)
                try refuseOtherInstruments(line, number: index + 1)
            } catch { record(error) }
        }
        do throws(ScriptError) { _ = try parser.finish() } catch { record(error) }
        return problems
    }

    /// The parser takes what the simulator runs; the checker also refuses, by name, a command the table
    /// gives to other instruments only (`meas_loop_cp` and `set_i`: the EmStat Pico has no galvanostat).
    private static func refuseOtherInstruments(_ line: ArraySlice<UInt8>, number: Int) throws(ScriptError) {
        let start = line.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? line.endIndex
        let end = line[start...].firstIndex { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } ?? line.endIndex
        let word = String(decoding: line[start..<end], as: UTF8.self)
        guard let signature = ScriptCommandSignature.table[word], !signature.onlyOn.isEmpty else { return }
        throw ScriptError(
            ScriptErrorCode.scriptCommandUnknown,
            line: number,
            column: start - line.startIndex + 1,
            detail: "\(word) is for the \(signature.onlyOn.joined(separator: " and ")) only (\(signature.meaning)); "
                + "the EmStat Pico does not have it"
        )
    }
}
