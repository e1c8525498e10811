/// `[status]`: where the rig serves its status page, `/metrics` and `/healthz`. Loopback by default;
/// any other address needs a token.
public struct StatusConfig: Sendable, Equatable {
    public var host: String
    /// 0 picks a free port (logged once listening).
    public var port: Int
    /// The file holding the token every request must carry (nil: no token asked).
    public var tokenFile: String?

    public static let defaultPort = 9464

    public init(host: String = "127.0.0.1", port: Int = StatusConfig.defaultPort, tokenFile: String? = nil) {
        self.host = host
        self.port = port
        self.tokenFile = tokenFile
    }

    /// Whether `host` reaches only this machine (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
