/// Where and how the forwarder reaches PostgreSQL (the CLI builds it from the rig config, with the
/// password already read from its environment variable or file).
public struct ForwarderSettings: Sendable {
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The socket file (`DIR/.s.PGSQL.PORT`).
        case socket(path: String)
    }

    public enum TLSMode: Sendable, Equatable {
        case disable
        /// TLS when offered, certificate verified.
        case prefer
        /// TLS always, certificate not verified.
        case require
        /// TLS always, certificate and host name verified.
        case verifyFull
    }

    /// The rig's name: the first part of every key in PostgreSQL.
    public var rig: String
    /// The URL without password, for logs and the status page.
    public var target: String
    public var endpoint: Endpoint
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// Packages per transaction.
    public var batch: Int
    /// Forwarded packages of runs ended longer ago than this many seconds are pruned from the journal.
    public var retention: Double?

    public init(
        rig: String,
        target: String,
        endpoint: Endpoint,
        user: String,
        password: String?,
        database: String,
        tls: TLSMode,
        batch: Int = 5000,
        retention: Double? = nil
    ) {
        self.rig = rig
        self.target = target
        self.endpoint = endpoint
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
        self.batch = batch
        self.retention = retention
    }
}
