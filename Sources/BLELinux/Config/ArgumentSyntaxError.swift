/// A command-line value (a transport, an adapter name, a device address) that is malformed, refused
/// before any socket is opened. `position` is the 1-based character where the problem starts.
public struct ArgumentSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let what: String
    public let text: String
    public let position: Int
    public let problem: String
    public let acceptedForms: String

    public init(what: String, text: String, position: Int, problem: String, acceptedForms: String) {
        self.what = what
        self.text = text
        self.position = position
        self.problem = problem
        self.acceptedForms = acceptedForms
    }

    public var description: String {
        "invalid \(what) '\(text)' at character \(position): \(problem); accepted: \(acceptedForms)"
    }
}
