/// A MethodSCRIPT error as the device reports it: a 4-hex-digit code and, for script errors, the 1-based line
/// (counted from the first line after `e`) and column where it was found. Written as `!4001: Line 3, Col 1`.
public struct ScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device's error code (`DeviceErrorCode`).
    public let code: UInt16
    /// The 1-based line, counted from the first line after `e`.
    public let line: Int
    /// The 1-based column.
    public let column: Int
    /// What the checker saw, in words (empty when only the code is known).
    public let detail: String

    /// An error of `code` at `line`, `column`, with `detail` for people.
    public init(_ code: UInt16, line: Int, column: Int, detail: String = "") {
        self.code = code
        self.line = line
        self.column = column
        self.detail = detail
    }

    /// The detail, or the device's message for the code: `meas_loop_lsv end = 3 (3 V): must be from -1.7 V
    /// to 2 V`.
    public var message: String {
        detail.isEmpty ? DeviceErrorCode(rawValue: code).message : detail
    }

    /// The reply line without its newline, e.g. `!420B: Line 4, Col 14`.
    public var description: String {
        "!\(ScriptError.hex4(code)): Line \(line), Col \(column)"
    }

    /// `code` as four uppercase hex digits, e.g. `4205`.
    public static func hex4(_ code: UInt16) -> String {
        let digits = String(code, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

/// The error codes the checker and the simulator use (from the PalmSens SDK's error table).
public enum ScriptErrorCode {
    /// Communication-level: command not recognized.
    public static let commandUnknown: UInt16 = 0x0003
    /// Communication mode invalid (also `Z` when no script runs).
    public static let communicationModeInvalid: UInt16 = 0x0006
    /// Command exceeds the maximum length.
    public static let commandTooLong: UInt16 = 0x0008
    /// The script command is unknown.
    public static let scriptCommandUnknown: UInt16 = 0x4001
    /// An unexpected character (also a missing argument: the line ended where one was expected).
    public static let unexpectedCharacter: UInt16 = 0x4004
    /// The script is too large for the script memory.
    public static let scriptTooLarge: UInt16 = 0x4005
    /// Measurement loops cannot be nested.
    public static let nestedMeasurementLoops: UInt16 = 0x400B
    /// Scope depth too large.
    public static let scopeTooDeep: UInt16 = 0x400D
    /// The command had an invalid effect on scope depth (`endloop` without a loop).
    public static let invalidScope: UInt16 = 0x400E
    /// The script ended unexpectedly (a loop left open).
    public static let scriptEndedUnexpectedly: UInt16 = 0x4018
    /// Not allowed inside a measurement loop.
    public static let notAllowedInMeasurementLoop: UInt16 = 0x401A
    /// Packet sequence wrong (`pck_add` outside `pck_start`/`pck_end`).
    public static let packetSequence: UInt16 = 0x401B
    /// Too many variables in one packet.
    public static let tooManyPacketVariables: UInt16 = 0x401C
    /// Variable already exists.
    public static let variableExists: UInt16 = 0x4026
    /// Needs `cell_on`.
    public static let needsCellOn: UInt16 = 0x4027
    /// Bad variable name.
    public static let badVariableName: UInt16 = 0x402B
    /// Variable name too long.
    public static let variableNameTooLong: UInt16 = 0x402C
    /// Cannot set the potential inside an active measurement loop.
    public static let potentialInMeasurementLoop: UInt16 = 0x4032
    /// Value must be positive (not zero).
    public static let mustBePositive: UInt16 = 0x4204
    /// Value outside the allowed bounds.
    public static let outOfBounds: UInt16 = 0x4205
    /// Datatype (float/int) invalid for the command.
    public static let badDatatype: UInt16 = 0x4207
    /// Variable type invalid for the command.
    public static let badVariableType: UInt16 = 0x4209
    /// An additional argument was given.
    public static let extraArgument: UInt16 = 0x420A
    /// Variable not declared.
    public static let undeclaredVariable: UInt16 = 0x420B
    /// A literal where a variable is required.
    public static let literalNotSupported: UInt16 = 0x420D
}
