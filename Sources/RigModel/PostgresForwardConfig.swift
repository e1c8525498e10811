import Foundation

/// `[forward.postgres]`: where a rig forwards its journal. The URL never holds the password; it comes
/// from an environment variable or a file only the service can read, and is read when forwarding
/// starts, never kept in the config.
public struct PostgresForwardConfig: Sendable, Equatable {
    /// TLS as libpq's `sslmode` names it (the modes postgres-nio can do).
    public enum SSLMode: String, Sendable, Equatable, CaseIterable {
        /// Plain TCP (or a Unix socket).
        case disable
        /// TLS when the server offers it, with the certificate verified; plain otherwise.
        case prefer
        /// TLS always, the certificate not verified (libpq's `require`).
        case require
        /// TLS always, the certificate and the host name verified against the system's CAs.
        case verifyFull = "verify-full"
    }

    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The socket file (`DIR/.s.PGSQL.PORT`).
        case socket(path: String)
    }

    /// The URL as written (no password in it), for logs and the status page.
    public var url: String
    public var endpoint: Endpoint
    public var user: String
    public var database: String
    public var passwordEnvironment: String?
    public var passwordFile: String?
    public var sslMode: SSLMode
    /// Packages per PostgreSQL transaction.
    public var batch: Int
    /// Forwarded packages of runs that ended longer ago than this (seconds) are pruned from the journal;
    /// nil keeps them.
    public var retention: Double?

    public init(
        url: String,
        endpoint: Endpoint,
        user: String,
        database: String,
        passwordEnvironment: String? = nil,
        passwordFile: String? = nil,
        sslMode: SSLMode = .prefer,
        batch: Int = 5000,
        retention: Double? = nil
    ) {
        self.url = url
        self.endpoint = endpoint
        self.user = user
        self.database = database
        self.passwordEnvironment = passwordEnvironment
        self.passwordFile = passwordFile
        self.sslMode = sslMode
        self.batch = batch
        self.retention = retention
    }

    /// Reads `postgres://USER@HOST[:PORT]/DATABASE` or `postgres://USER@/DATABASE?host=/socket/dir`
    /// (libpq's form for a Unix socket: `host` names the socket's folder). Returns the parts, or why the
    /// URL cannot be used.
    public static func parse(
        url text: String
    ) -> Result<(endpoint: Endpoint, user: String, database: String), URLProblem> {
        guard let url = URLComponents(string: text), let scheme = url.scheme else {
            return .failure(URLProblem("\"\(text)\" is not a URL (postgres://USER@HOST:PORT/DATABASE)"))
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            return .failure(URLProblem("the scheme must be postgres:// (not \(scheme)://)"))
        }
        if url.password != nil {
            return .failure(
                URLProblem("the URL holds a password: remove it and use password_env or password_file")
            )
        }
        guard let user = url.user, !user.isEmpty else {
            return .failure(URLProblem("no user: postgres://USER@HOST:PORT/DATABASE"))
        }
        let database = String(url.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            return .failure(URLProblem("no database: postgres://USER@HOST:PORT/DATABASE"))
        }
        let port = url.port ?? 5432
        guard (1...65535).contains(port) else { return .failure(URLProblem("port \(port) is out of range")) }
        var socketFolder: String?
        for item in url.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let value = item.value, value.hasPrefix("/") else {
                    return .failure(URLProblem("host= must name the socket's folder (an absolute path)"))
                }
                socketFolder = value
            default:
                return .failure(
                    URLProblem("unknown URL parameter \(item.name) (only host=; TLS is the sslmode key)")
                )
            }
        }
        if let socketFolder {
            guard (url.host ?? "").isEmpty else {
                return .failure(URLProblem("give either a host or host=/socket/dir, not both"))
            }
            return .success((.socket(path: "\(socketFolder)/.s.PGSQL.\(port)"), user, database))
        }
        guard let host = url.host, !host.isEmpty else {
            return .failure(URLProblem("no host: postgres://USER@HOST:PORT/DATABASE (or ?host=/socket/dir)"))
        }
        return .success((.tcp(host: host, port: port), user, database))
    }

    public struct URLProblem: Error, Equatable, Sendable {
        public var message: String
        init(_ message: String) { self.message = message }
    }
}
