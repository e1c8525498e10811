import Foundation
import RigCore
import RigModel
import Testing

/// `[status]` and `[forward.postgres]`: read as written, every mistake located, secrets kept out.
@Suite struct FleetConfigTests {
    let device = """
        [[device]]
        name = "pico-1"
        transport = "sim"
        script = "CV.mscr"
        schedule = "once"
        """

    struct Problems: Error {
        var lines: [String]
    }

    func parse(_ text: String, secret: (name: String, mode: Int)? = nil) throws -> Result<RigConfig, Problems> {
        let folder = try RigConfigParserTests.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        if let secret {
            let path = folder + "/" + secret.name
            try "s3cret\n".write(toFile: path, atomically: false, encoding: .utf8)
            chmod(path, mode_t(secret.mode))
        }
        do throws(ConfigProblems) {
            return .success(try RigConfigParserTests.parser.parse(text: text, file: folder + "/rig.toml"))
        } catch {
            return .failure(
                Problems(lines: error.problems.map { "\($0.line.map(String.init) ?? "-") \($0.key): \($0.message)" })
            )
        }
    }

    @Test func aFleetConfigReadsWhatItSays() throws {
        let text = """
            [rig]
            name = "lab-1"
            [status]
            listen = "0.0.0.0:9500"
            token_file = "status.token"
            [forward.postgres]
            url = "postgres://hcipico@db.lab:6543/lab"
            password_env = "PGPASS_LAB"
            sslmode = "verify-full"
            batch = 250
            retention = "30d"
            \(device)
            """
        let config = try parse(text, secret: ("status.token", 0o600)).get()
        #expect(config.status?.host == "0.0.0.0" && config.status?.port == 9500)
        #expect(config.status?.tokenFile?.hasSuffix("/status.token") == true)
        let forward = try #require(config.forward)
        #expect(forward.endpoint == PostgresForwardConfig.Endpoint.tcp(host: "db.lab", port: 6543))
        #expect(forward.user == "hcipico" && forward.database == "lab")
        #expect(forward.passwordEnvironment == "PGPASS_LAB" && forward.passwordFile == nil)
        #expect(
            forward.sslMode == PostgresForwardConfig.SSLMode.verifyFull && forward.batch == 250
                && forward.retention == 30 * 86400
        )
    }

    @Test func aUnixSocketURLNamesTheSocketFile() throws {
        let text = """
            [rig]
            name = "lab-1"
            [forward.postgres]
            url = "postgresql://rig@/fleet?host=/run/postgresql"
            \(device)
            """
        let config = try parse(text).get()
        #expect(config.forward?.endpoint == .socket(path: "/run/postgresql/.s.PGSQL.5432"))
        #expect(config.forward?.sslMode == .disable)
        #expect(config.status == nil)
    }

    @Test func theDefaultsAreLoopbackAndNoToken() throws {
        let config = try parse("[rig]\nname = \"lab-1\"\n[status]\n\(device)").get()
        #expect(config.status == StatusConfig(host: "127.0.0.1", port: 9464, tokenFile: nil))
    }

    @Test func mistakesAreLocatedAndSecretsRefused() throws {
        let text = """
            [rig]
            name = "lab-1"
            [status]
            listen = "0.0.0.0:9500"
            [forward.postgres]
            url = "postgres://hcipico:hunter2@db.lab/lab"
            sslmode = "always"
            batch = 0
            colour = "blue"
            \(device)
            """
        guard case .failure(let found) = try parse(text) else {
            Issue.record("accepted")
            return
        }
        let problems = found.lines
        #expect(problems.contains { $0.hasPrefix("4 status.listen:") && $0.contains("add token_file") })
        #expect(problems.contains { $0.hasPrefix("6 forward.postgres.url:") && $0.contains("holds a password") })
        #expect(problems.contains { $0.hasPrefix("7 forward.postgres.sslmode:") && $0.contains("\"always\"") })
        #expect(problems.contains { $0.hasPrefix("8 forward.postgres.batch:") })
        #expect(problems.contains { $0.hasPrefix("9 forward.postgres.colour: unknown key") })
        #expect(!problems.joined().contains("hunter2"))
    }

    @Test func aTokenFileOthersMayReadIsRefused() throws {
        let text = "[rig]\nname = \"lab-1\"\n[status]\nlisten = \"192.0.2.1:80\"\ntoken_file = \"t\"\n\(device)"
        guard case .failure(let found) = try parse(text, secret: ("t", 0o644)) else {
            Issue.record("accepted")
            return
        }
        let problems = found.lines
        #expect(problems.count == 1 && problems[0].contains("status.token_file") && problems[0].contains("chmod 600"))
    }

    @Test func aControlTokenIsReadAndMustDifferFromTheReadToken() throws {
        let control = "[rig]\nname = \"lab-1\"\n[status]\ncontrol_token_file = \"c\"\n\(device)"
        let config = try parse(control, secret: ("c", 0o600)).get()
        #expect(config.status?.controlTokenFile?.hasSuffix("/c") == true && config.status?.tokenFile == nil)
        let same = "[rig]\nname = \"lab-1\"\n[status]\ntoken_file = \"c\"\ncontrol_token_file = \"c\"\n\(device)"
        guard case .failure(let found) = try parse(same, secret: ("c", 0o600)) else {
            Issue.record("accepted")
            return
        }
        #expect(
            found.lines == [
                "5 status.control_token_file: is token_file too: the control token must differ from the read token"
            ]
        )
        guard case .failure(let open) = try parse(control, secret: ("c", 0o644)) else {
            Issue.record("accepted")
            return
        }
        #expect(
            open.lines.count == 1 && open.lines[0].contains("status.control_token_file")
                && open.lines[0].contains("chmod 600")
        )
    }

    @Test func urlsThatCannotWork() {
        func problem(_ url: String) -> String? {
            if case .failure(let problem) = PostgresForwardConfig.parse(url: url) { return problem.message }
            return nil
        }
        #expect(problem("mysql://a@b/c")?.contains("scheme") == true)
        #expect(problem("postgres://db/lab")?.contains("no user") == true)
        #expect(problem("postgres://u@db")?.contains("no database") == true)
        #expect(problem("postgres://u@/lab")?.contains("no host") == true)
        #expect(problem("postgres://u@/lab?host=relative")?.contains("absolute") == true)
        #expect(problem("postgres://u@db/lab?sslmode=require")?.contains("sslmode key") == true)
        #expect(problem("postgres://u@[::1]:5433/lab") == nil)
    }

    @Test func listenAddresses() {
        #expect(StatusConfig.isLoopback("127.0.0.1") && StatusConfig.isLoopback("::1"))
        #expect(!StatusConfig.isLoopback("0.0.0.0") && !StatusConfig.isLoopback("10.0.0.2"))
    }
}
