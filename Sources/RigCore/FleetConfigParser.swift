import Foundation
import RigModel
import TOMLKit

/// The fleet sections of a rig config: `[status]` and `[forward.postgres]`.
struct FleetConfigParser {
    let folder: String
    /// The environment `password_env` is looked up in (the process's own, unless a test gives one).
    let environment: [String: String]
    /// Whether `[status] listen` must be free now (`rig --check`: a port another program holds).
    let checksListenAddress: Bool

    func status(_ table: TOMLTable, reader: inout ConfigReader) -> StatusConfig? {
        reader.unknownKeys(in: table, table: "status", allowed: ["listen", "token_file", "control_token_file"])
        var config = StatusConfig()
        if let listen = reader.string(table, table: "status", key: "listen") {
            guard let (host, port) = Self.hostAndPort(listen) else {
                reader.problem(
                    table: "status",
                    key: "listen",
                    "\"\(listen)\" is not HOST:PORT (127.0.0.1:9464, 0.0.0.0:9464, [::1]:9464; port 0 picks one)"
                )
                return nil
            }
            config.host = host
            config.port = port
        }
        if let token = reader.string(table, table: "status", key: "token_file") {
            let path = resolve(token)
            if let problem = SecretFile.problem(path) {
                reader.problem(table: "status", key: "token_file", problem)
            }
            config.tokenFile = path
        } else if !StatusConfig.isLoopback(config.host) {
            reader.problem(
                table: "status",
                key: "listen",
                "\(config.host) is reachable from other machines: add token_file (a file with the token, mode 600)"
            )
        }
        if let control = reader.string(table, table: "status", key: "control_token_file") {
            let path = resolve(control)
            if let problem = SecretFile.problem(path) {
                reader.problem(table: "status", key: "control_token_file", problem)
            }
            if path == config.tokenFile {
                reader.problem(
                    table: "status",
                    key: "control_token_file",
                    "is token_file too: the control token must differ from the read token"
                )
            }
            config.controlTokenFile = path
        }
        if checksListenAddress, let problem = config.listenProblem() {
            reader.problem(table: "status", key: "listen", problem)
        }
        return config
    }

    func forward(_ table: TOMLTable, reader: inout ConfigReader) -> PostgresForwardConfig? {
        reader.unknownKeys(in: table, table: "forward", allowed: ["postgres"])
        guard let postgres = reader.table(table, "postgres", required: false, parent: "forward") else { return nil }
        let name = "forward.postgres"
        reader.unknownKeys(
            in: postgres,
            table: name,
            allowed: ["url", "password_env", "password_file", "sslmode", "batch", "retention"]
        )
        // Every key is checked even when the URL is not usable, so one pass reports everything.
        let url = reader.string(postgres, table: name, key: "url", required: true)
        var usable = true
        var config = PostgresForwardConfig(url: "", endpoint: .socket(path: ""), user: "", database: "")
        switch url.map(PostgresForwardConfig.parse(url:)) {
        case .success(let parts)?:
            config = PostgresForwardConfig(
                url: url ?? "",
                endpoint: parts.endpoint,
                user: parts.user,
                database: parts.database
            )
        case .failure(let problem)?:
            reader.problem(table: name, key: "url", problem.message)
            usable = false
        case nil:
            usable = false
        }
        config.passwordEnvironment = reader.string(postgres, table: name, key: "password_env")
        if let variable = config.passwordEnvironment, (environment[variable] ?? "").isEmpty {
            reader.problem(
                table: name,
                key: "password_env",
                "\(variable) is not set in this environment (the rig would stop at start)"
            )
        }
        if let file = reader.string(postgres, table: name, key: "password_file") {
            let path = resolve(file)
            if let problem = SecretFile.problem(path) { reader.problem(table: name, key: "password_file", problem) }
            config.passwordFile = path
        }
        if config.passwordEnvironment != nil && config.passwordFile != nil {
            reader.problem(table: name, key: "password_file", "give password_env or password_file, not both")
        }
        if let mode = reader.string(postgres, table: name, key: "sslmode") {
            if let known = PostgresForwardConfig.SSLMode(rawValue: mode) {
                config.sslMode = known
            } else {
                let modes = PostgresForwardConfig.SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
                reader.problem(table: name, key: "sslmode", "\"\(mode)\" is not one of \(modes)")
            }
        }
        if usable, case .socket = config.endpoint, config.sslMode != .disable, postgres["sslmode"] != nil {
            reader.problem(table: name, key: "sslmode", "a Unix socket takes no TLS: use sslmode = \"disable\"")
        }
        if case .socket = config.endpoint { config.sslMode = .disable }
        if let batch = reader.integer(postgres, table: name, index: nil, key: "batch") {
            if (1...1_000_000).contains(batch) {
                config.batch = batch
            } else {
                reader.problem(table: name, key: "batch", "\(batch) is not between 1 and 1000000 packages")
            }
        }
        config.retention = reader.duration(postgres, table: name, index: nil, key: "retention")
        return usable ? config : nil
    }

    private func resolve(_ path: String) -> String { path.hasPrefix("/") ? path : folder + "/" + path }

    /// `HOST:PORT`, `[IPv6]:PORT`.
    static func hostAndPort(_ text: String) -> (String, Int)? {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, !host.contains(" "), let port = Int(portText), (0...65535).contains(port) else {
            return nil
        }
        return (String(host), port)
    }
}
