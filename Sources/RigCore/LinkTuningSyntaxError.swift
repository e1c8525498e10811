import BLEHost

/// A `--link` value that is not a preset nor valid explicit parameters; `offset` is the 0-based
/// character position of the offending field in `text`.
public struct LinkTuningSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text as given.
    public let text: String
    /// The 0-based character position of the offending field in `text`.
    public let offset: Int
    /// The field at fault, for example `interval minimum`, `latency` or `timeout`.
    public let field: String
    /// What is wrong with the field.
    public let reason: String

    /// Creates an error for `field` at `offset` in `text`.
    public init(text: String, offset: Int, field: String, reason: String) {
        self.text = text
        self.offset = offset
        self.field = field
        self.reason = reason
    }

    /// The text, the 1-based position and field, the reason, and the accepted forms.
    public var description: String {
        "'\(text)' at character \(offset + 1) (\(field)): \(reason); expected \(LinkTuningRequest.acceptedForms)"
    }
}
