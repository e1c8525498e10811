/// A command argument: a literal (with whether it was written as an `i` integer) or a declared variable.
public enum ScriptArgument: Sendable, Hashable {
    /// A number written in the script, in SI base units (`500m` is 0.5).
    case literal(Double, isInteger: Bool)
    /// A declared variable, by its slot in `ScriptProgram.variableNames`.
    case variable(Int)
}

/// The measurement loops the parser knows (`meas_loop_` and this name).
public enum MeasurementLoopKind: String, Sendable, CaseIterable {
    /// Chronoamperometry.
    case ca
    /// Linear sweep voltammetry.
    case lsv
    /// Cyclic voltammetry.
    case cv
    /// Square-wave voltammetry.
    case swv
    /// Differential pulse voltammetry.
    case dpv
    /// Electrochemical impedance spectroscopy.
    case eis
    /// Normal pulse voltammetry.
    case npv
    /// Open circuit potentiometry.
    case ocp
    /// Chronopotentiometry.
    case cp
    /// Pulsed amperometric detection.
    case pad

    /// The positions of the `meas_loop_*` parameters that are potentials the cell gets: E_dc (ca),
    /// begin and end (lsv, swv, dpv), begin and both vertices (cv), the DC potential (eis).
    public var potentialParameters: [Int] {
        switch self {
        case .ca: [0]
        case .lsv, .swv, .dpv, .npv, .pad: [0, 1]
        case .cv: [0, 1, 2]
        case .eis: [4]
        case .ocp, .cp: []
        }
    }
}

/// One `meas_loop_*` with its output variables, parameters and the index of its `endloop`.
public struct MeasurementLoop: Sendable {
    /// Which loop.
    public var kind: MeasurementLoopKind
    /// The variables it sets at each point, by slot.
    public var outputs: [Int]
    /// Its parameters, in the command's order.
    public var parameters: [ScriptArgument]
    /// `nscans(n)` of a CV (1 without it).
    public var scans: Int
    /// The statement index of its `endloop`.
    public var end: Int
}

/// A comparison operator of `loop a <op> b`.
public enum Comparison: Sendable {
    /// `<`
    case less
    /// `<=`
    case lessOrEqual
    /// `>`
    case greater
    /// `>=`
    case greaterOrEqual
    /// `==`
    case equal
    /// `!=`
    case notEqual

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

    /// Whether `lhs <op> rhs`.
    public func holds(_ lhs: Double, _ rhs: Double) -> Bool {
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
public enum ScriptInstruction: Sendable {
    /// `var name`: the slot declared.
    case declare(Int)
    /// `store_var name value type`.
    case store(Int, ScriptArgument, VariableType)
    /// `add_var name value`.
    case add(Int, ScriptArgument)
    /// `sub_var name value`.
    case subtract(Int, ScriptArgument)
    /// `set_pgstat_chan channel`.
    case setPgstatChannel(ScriptArgument)
    /// `set_pgstat_mode mode`.
    case setPgstatMode(ScriptArgument)
    /// `set_max_bandwidth hertz`.
    case setMaxBandwidth(ScriptArgument)
    /// `set_range type value` (and the old `set_cr value`).
    case setRange(VariableType, ScriptArgument)
    /// `set_range_minmax type low high`.
    case setRangeMinMax(VariableType, ScriptArgument, ScriptArgument)
    /// `set_autoranging type low high` (and its old form without a type).
    case setAutoranging(VariableType, ScriptArgument, ScriptArgument)
    /// `set_pot_range low high`.
    case setPotentialRange(ScriptArgument, ScriptArgument)
    /// `set_e potential`.
    case setPotential(ScriptArgument)
    /// `cell_on`.
    case cellOn
    /// `cell_off`.
    case cellOff
    /// `wait seconds`.
    case wait(ScriptArgument)
    /// `timer_start`.
    case timerStart
    /// `timer_get name`.
    case timerGet(Int)
    /// `meas_loop_*`.
    case measure(MeasurementLoop)
    /// `loop a op b`, with the index of its `endloop`.
    case loop(ScriptArgument, Comparison, ScriptArgument, end: Int)
    /// `endloop`.
    case endLoop
    /// `pck_start`.
    case packageStart
    /// `pck_add name`.
    case packageAdd(Int)
    /// `pck_end`.
    case packageEnd
    /// `send_string "text"`.
    case sendString([UInt8])
    /// `on_finished:`.
    case onFinished
    /// A command the checker knows and the simulator does not run (`if`, `set_gpio`, …), by its word.
    case other(String)
}

/// A command and where it was written (1-based line after `e`, 1-based column of the command).
public struct ScriptStatement: Sendable {
    /// What it does.
    public var instruction: ScriptInstruction
    /// Its line, counted from the first line after `e`.
    public var line: Int
    /// The column of its command word.
    public var column: Int
}

/// A parsed script: flat statements (loops know their `endloop` index), the variable table and where
/// `on_finished:` starts.
public struct ScriptProgram: Sendable {
    /// The commands in order.
    public var statements: [ScriptStatement] = []
    /// The declared variables, by slot.
    public var variableNames: [String] = []
    /// Index of the `on_finished:` statement, if any; the main part ends there.
    public var onFinished: Int?
    /// Measurement loops used, in order (the simulator picks its cell model from them).
    public var techniques: [MeasurementLoopKind] = []
}
