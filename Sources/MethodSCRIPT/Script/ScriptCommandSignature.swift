/// What the checker knows of one MethodSCRIPT command (`Specs/methodscript/commands.csv`): its arguments
/// in order, how it shapes the script, and whether the simulator runs it.
public struct ScriptCommandSignature: Sendable {
    /// How a command shapes the script.
    public enum Kind: Sendable {
        /// An ordinary command.
        case statement
        /// `loop`: opens a loop.
        case loop
        /// `endloop`: closes a loop or a measurement loop.
        case endLoop
        /// `if`: opens a conditional.
        case `if`
        /// `elseif`.
        case elseIf
        /// `else`.
        case `else`
        /// `endif`.
        case endIf
        /// `on_finished:`.
        case onFinished
        /// `meas_loop_*`: opens a measurement loop.
        case measurementLoop
        /// `pck_start`.
        case packageStart
        /// `pck_add`.
        case packageAdd
        /// `pck_end`.
        case packageEnd
    }

    /// One argument's place.
    public struct Argument: Sendable {
        /// What an argument may be.
        public enum Kind: Sendable {
            /// A new variable's name.
            case declare
            /// A variable that receives a value (declared here when it is not yet).
            case target
            /// A declared variable.
            case variable
            /// A number or a declared variable.
            case value
            /// A whole number (`3`, `3i`, `0x1Fi`) or a declared variable.
            case integer
            /// A two-letter variable type (`ba`, `da`).
            case type
            /// `operand comparison operand` (three words).
            case condition
            /// A `"…"` string.
            case string
            /// An optional trailing block `name(value)`, e.g. `nscans(3)`.
            case block
        }

        /// Its name in the table, used in messages.
        public let name: String
        /// What it may be.
        public let kind: Kind
        /// The unit of its value, if any.
        public let unit: String
        /// The bound a literal value must keep, if any.
        public let bound: InstrumentLimit?
    }

    /// The command word.
    public let name: String
    /// Its arguments in order.
    public let arguments: [Argument]
    /// How it shapes the script.
    public let kind: Kind
    /// Whether the simulator runs it (a command it does not run is refused there by name).
    public let simulated: Bool
    /// The only instruments that have it, when the EmStat Pico does not (empty: every instrument, the Pico
    /// too); the checker refuses such a command.
    public let onlyOn: [String]
    /// What it does.
    public let meaning: String
}
