/// `[status]`: where the rig serves its status page, its API, `/metrics` and `/healthz`. Loopback by
/// default; any other address needs a token. The API's control actions (submit, cancel, abort, pause)
/// need the control token, wherever it listens; without one they are refused.
public struct StatusConfig: Sendable, Equatable {
    public var host: String
    /// 0 picks a free port (logged once listening).
    public var port: Int
    /// The file holding the token every request must carry (nil: no token asked).
    public var tokenFile: String?
    /// The file holding the control token (nil: no control action is taken).
    public var controlTokenFile: String?

    public static let defaultPort = 9464

    public init(
        host: String = "127.0.0.1",
        port: Int = StatusConfig.defaultPort,
        tokenFile: String? = nil,
        controlTokenFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.tokenFile = tokenFile
        self.controlTokenFile = controlTokenFile
    }

    /// Whether `host` reaches only this machine (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
