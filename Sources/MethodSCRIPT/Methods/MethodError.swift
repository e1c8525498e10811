/// Why a method cannot be made or sent.
public enum MethodError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A key that is not a parameter of the technique.
    case unknownParameter(String, technique: Technique)
    /// A technique name that is not in the table.
    case unknownTechnique(String)
    /// Values the instrument cannot do, each with its bound.
    case invalid([MethodProblem])
    /// A setting that is not `KEY=VALUE` with a number (`Method.values(settings:)`).
    case malformedSetting(String)

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
        case .malformedSetting(let setting):
            return "\(setting): not KEY=VALUE with a number in SI units (scan_rate=0.05)"
        }
    }
}
