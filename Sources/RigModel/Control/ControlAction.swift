/// One control action taken on a rig (who, what, when), as the journal keeps it.
public struct ControlAction: Sendable, Equatable {
    /// Seconds since the Unix epoch.
    public var time: Double
    /// Who: the role and the client (`control token (curl/8.1.2)`).
    public var actor: String
    /// What: `submit`, `cancel`, `abort`, `pause`, `resume`.
    public var action: String
    public var device: String
    /// The run request it concerns, if any.
    public var requestID: String?
    /// What else there is to say (the order's title and priority, the outcome).
    public var detail: String

    public init(time: Double, actor: String, action: String, device: String, requestID: String? = nil, detail: String) {
        self.time = time
        self.actor = actor
        self.action = action
        self.device = device
        self.requestID = requestID
        self.detail = detail
    }
}
