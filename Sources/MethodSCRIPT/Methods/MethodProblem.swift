/// One reason a method is refused: the parameter (or none, for a rule across parameters), its value and
/// what it must be.
public struct MethodProblem: Sendable, Hashable, CustomStringConvertible {
    /// The parameter's key, or nil for a rule that spans several or for the method as a whole.
    public let parameter: String?
    /// What is wrong, e.g. `scan_rate = 0 V/s: must be above 0 V/s`.
    public let message: String

    /// A problem with `message`, about `parameter` when there is one.
    public init(parameter: String?, message: String) {
        self.parameter = parameter
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
