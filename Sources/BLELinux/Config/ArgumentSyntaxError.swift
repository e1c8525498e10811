/// A command-line value (a transport, an adapter name, a device address) that is malformed, refused
/// before any socket is opened. `position` is the 1-based character where the problem starts.
public struct ArgumentSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the value is, as the message names it (`transport`, `adapter`, `device address`).
    public let what: String
    /// The value as given.
    public let text: String
    /// The 1-based character of `text` where the problem starts (one past the end when something is missing
    /// there).
    public let position: Int
    /// What is wrong at `position`, as a lowercase clause (`expected ':' after octet 3`).
    public let problem: String
    /// The forms the value may take, as the parsing type's `acceptedForms` gives them.
    public let acceptedForms: String

    /// A malformed `text`; each argument is kept in the property of the same name.
    public init(what: String, text: String, position: Int, problem: String, acceptedForms: String) {
        self.what = what
        self.text = text
        self.position = position
        self.problem = problem
        self.acceptedForms = acceptedForms
    }

    /// One line: `invalid WHAT 'TEXT' at character N: PROBLEM; accepted: FORMS`.
    public var description: String {
        "invalid \(what) '\(text)' at character \(position): \(problem); accepted: \(acceptedForms)"
    }
}
