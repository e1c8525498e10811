/// A MethodSCRIPT variable type: two lowercase letters such as `da` (applied potential) or `ba` (WE current).
struct VariableType: Hashable, Sendable {
    let first: UInt8
    let second: UInt8

    init(_ first: UInt8, _ second: UInt8) {
        self.first = first
        self.second = second
    }

    init?(token: ArraySlice<UInt8>) {
        guard token.count == 2, let a = token.first, let b = token.last,
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(a), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b)
        else { return nil }
        self.init(a, b)
    }

    static let unknown = VariableType(UInt8(ascii: "a"), UInt8(ascii: "a"))
    static let appliedPotential = VariableType(UInt8(ascii: "d"), UInt8(ascii: "a"))
    static let appliedFrequency = VariableType(UInt8(ascii: "d"), UInt8(ascii: "c"))
    static let current = VariableType(UInt8(ascii: "b"), UInt8(ascii: "a"))
    static let impedanceReal = VariableType(UInt8(ascii: "c"), UInt8(ascii: "c"))
    static let impedanceImaginary = VariableType(UInt8(ascii: "c"), UInt8(ascii: "d"))
    static let time = VariableType(UInt8(ascii: "e"), UInt8(ascii: "b"))
    static let measuredPotential = VariableType(UInt8(ascii: "a"), UInt8(ascii: "b"))

    /// Whether packages carry status and range metadata for this type (currents and impedances).
    var carriesRangeMetadata: Bool {
        self == .current || self == .impedanceReal || self == .impedanceImaginary
    }
}

/// A command argument: a literal (with whether it was written as an `i` integer) or a declared variable.
enum ScriptArgument: Sendable {
    case literal(Double, isInteger: Bool)
    case variable(Int)
}

/// The measurement techniques the simulator runs.
public enum Technique: String, Sendable, CaseIterable {
    case ca, lsv, cv, swv, dpv, eis

    /// The positions of the `meas_loop_*` parameters that are potentials the cell gets: E_dc (ca),
    /// begin and end (lsv, swv, dpv), begin and both vertices (cv), the DC potential (eis).
    var potentialParameters: [Int] {
        switch self {
        case .ca: [0]
        case .lsv, .swv, .dpv: [0, 1]
        case .cv: [0, 1, 2]
        case .eis: [4]
        }
    }
}

/// One `meas_loop_*` with its output variables, parameters and the index of its `endloop`.
struct MeasurementLoop: Sendable {
    var technique: Technique
    var outputs: [Int]
    var parameters: [ScriptArgument]
    var scans: Int
    var end: Int
}

/// A comparison operator of `loop a <op> b`.
enum Comparison: Sendable {
    case less, lessOrEqual, greater, greaterOrEqual, equal, notEqual

    init?(token: ArraySlice<UInt8>) {
        switch String(decoding: token, as: UTF8.self) {
        case "<": self = .less
        case "<=": self = .lessOrEqual
        case ">": self = .greater
        case ">=": self = .greaterOrEqual
        case "==": self = .equal
        case "!=": self = .notEqual
        default: return nil
        }
    }

    func holds(_ lhs: Double, _ rhs: Double) -> Bool {
        switch self {
        case .less: lhs < rhs
        case .lessOrEqual: lhs <= rhs
        case .greater: lhs > rhs
        case .greaterOrEqual: lhs >= rhs
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        }
    }
}

/// One parsed script command.
enum ScriptInstruction: Sendable {
    case declare(Int)
    case store(Int, ScriptArgument, VariableType)
    case add(Int, ScriptArgument)
    case subtract(Int, ScriptArgument)
    case setPgstatChannel(ScriptArgument)
    case setPgstatMode(ScriptArgument)
    case setMaxBandwidth(ScriptArgument)
    case setRange(VariableType, ScriptArgument)
    case setRangeMinMax(VariableType, ScriptArgument, ScriptArgument)
    case setAutoranging(VariableType, ScriptArgument, ScriptArgument)
    case setPotentialRange(ScriptArgument, ScriptArgument)
    case setPotential(ScriptArgument)
    case cellOn
    case cellOff
    case wait(ScriptArgument)
    case timerStart
    case timerGet(Int)
    case measure(MeasurementLoop)
    case loop(ScriptArgument, Comparison, ScriptArgument, end: Int)
    case endLoop
    case packageStart
    case packageAdd(Int)
    case packageEnd
    case sendString([UInt8])
    case onFinished
}

/// A command and where it was written (1-based line after `e`, 1-based column of the command).
struct ScriptStatement: Sendable {
    var instruction: ScriptInstruction
    var line: Int
    var column: Int
}

/// A parsed script: flat statements (loops know their `endloop` index), the variable table and where
/// `on_finished:` starts.
struct ScriptProgram: Sendable {
    var statements: [ScriptStatement] = []
    var variableNames: [String] = []
    /// Index of the `on_finished:` statement, if any; the main part ends there.
    var onFinished: Int?
    /// Techniques used, in order (the simulator picks its cell model from them).
    var techniques: [Technique] = []
}
