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

/// Why a method cannot be made or sent.
public enum MethodError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key that is not a parameter of the technique.
    case unknownParameter(String, technique: Technique)
    /// A technique name that is not in the table.
    case unknownTechnique(String)
    /// Values the instrument cannot do, each with its bound.
    case invalid([MethodProblem])

    /// One line per problem.
    public var description: String {
        switch self {
        case .unknownParameter(let key, let technique):
            let known = technique.parameters.map(\.key).joined(separator: ", ")
            return "\(technique.rawValue) has no parameter \(key) (it has \(known))"
        case .unknownTechnique(let name):
            let known = Technique.allCases.map(\.rawValue).joined(separator: ", ")
            return "no technique \(name) (there are \(known))"
        case .invalid(let problems): return problems.map(\.message).joined(separator: "\n")
        }
    }
}
