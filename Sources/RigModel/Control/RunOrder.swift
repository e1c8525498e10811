/// What a client asks a device to run: a method (a technique and its parameters in SI units) or a
/// MethodSCRIPT as it is, with an optional priority, title and idempotency key.
public struct RunOrder: Sendable, Equatable {
    /// What runs.
    public enum Body: Sendable, Equatable {
        /// `technique` (`dpv`) with `parameters` by key (`e_begin`), unknown ones refused.
        case method(technique: String, parameters: [String: Double])
        /// A script, checked before it is queued.
        case script(String)
    }

    public var body: Body
    /// Higher runs first; 0 by default, as a schedule's runs.
    public var priority: Int
    /// The run's title (default: the technique, or `script`).
    public var title: String?
    /// A second order with the same key for the same device is the first one's request, not a new run.
    public var idempotencyKey: String?

    public init(body: Body, priority: Int = 0, title: String? = nil, idempotencyKey: String? = nil) {
        self.body = body
        self.priority = priority
        self.title = title
        self.idempotencyKey = idempotencyKey
    }
}
