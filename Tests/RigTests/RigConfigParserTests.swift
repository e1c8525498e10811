import BLETesting
import Foundation
import PicoLink
import RigCore
import Testing

@Suite struct RigConfigParserTests {
    /// A folder with the example scripts the configs name.
    static func folder(_ files: [String: String] = [:]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rig-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let scripts = ["CV.mscr": "e\nvar c\nvar p\npck_start\npck_add p\npck_add c\npck_end\n\n"]
        for (name, text) in scripts.merging(files, uniquingKeysWith: { $1 }) {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
        return folder
    }

    static let parser = RigConfigParser(
        transportCheck: { transport in
            transport.hasPrefix("kernel") || transport.hasPrefix("tcp:") ? nil : "not a transport: \(transport)"
        },
        environment: ["PGPASS_LAB": "s3cret"]
    )

    func parse(_ text: String, scripts: [String: String] = [:]) throws -> Result<RigConfig, ConfigProblems> {
        let folder = try Self.folder(scripts)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do throws(ConfigProblems) {
            return .success(try Self.parser.parse(text: text, file: folder + "/rig.toml"))
        } catch {
            return .failure(error)
        }
    }

    func problems(_ text: String) throws -> [String] {
        guard case .failure(let problems) = try parse(text) else { return [] }
        return problems.problems.map { "\($0.line.map(String.init) ?? "-") \($0.key): \($0.message)" }
    }

    @Test func aGoodConfigReadsEverySchedule() throws {
        let text = """
            [rig]
            name = "bench-3"

            [[device]]
            name = "a"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"

            [[device]]
            name = "b"
            address = "C0:FF:EE:00:00:01"
            address_type = "random"
            transport = "kernel:hci1"
            link = "low-latency"
            script = "CV.mscr"
            every = "1h30m"
            run_timeout = "20m"
            max_failures = 3
            failure_backoff = "10m"

            [[device]]
            name = "c"
            address = "C0:FF:EE:00:00:02"
            script = "CV.mscr"
            at = ["20:00", "08:30"]

            [[device]]
            name = "d"
            transport = "sim"
            script = "CV.mscr"
            schedule = "on-demand"
            """
        let config = try parse(text).get()
        #expect(config.name == "bench-3")
        #expect(config.journal.hasSuffix("/bench-3.sqlite"))
        #expect(config.devices.map(\.name) == ["a", "b", "c", "d"])
        #expect(config.devices[3].schedule == .onDemand && config.devices[3].schedule.waitsForRequests)
        #expect(config.devices[0].schedule == .once && config.devices[0].isSimulator)
        #expect(config.devices[1].schedule == .every(5400) && config.devices[1].runTimeout == 1200)
        #expect(config.devices[1].link?.name == "low-latency" && config.devices[1].addressType == "random")
        #expect(config.devices[1].maximumFailures == 3 && config.devices[1].failureBackoff == 600)
        #expect(config.devices[2].schedule == .daily([TimeOfDay("08:30")!, TimeOfDay("20:00")!]))
        #expect(config.devices[2].transport == "kernel")
        #expect(config.devices[0].script.packageLayouts == [["p", "c"]])
    }

    @Test func everyProblemIsReportedWithItsLineAndKey() throws {
        let text = """
            [rig]
            name = "bench 3"
            colour = "blue"

            [[device]]
            name = "a"
            transport = "sim"
            address = "C0:FF:EE:00:00:01"
            script = "missing.mscr"
            every = "10x"

            [[device]]
            name = "a"
            transport = "bluetooth"
            script = "CV.mscr"
            schedule = "hourly"
            link = "fast"

            [[device]]
            script = "CV.mscr"
            every = "10m"
            at = ["08:00"]
            max_failures = 0
            """
        let found = try problems(text)
        let expected = [
            "2 rig.name: \"bench 3\" is not a name",
            "3 rig.colour: unknown key",
            "8 device \"a\".address: a simulated device",
            "9 device \"a\".script: cannot read",
            "10 device \"a\".every: \"10x\" is not a duration",
            "14 device \"a\".transport: not a transport: bluetooth",
            "12 device \"a\".address: missing",
            "17 device \"a\".link:",
            "16 device \"a\".schedule: \"hourly\" is not once, continuous or on-demand",
            "19 device[3].name: missing",
            "19 device[3].address: missing",
            "22 device[3].at: give one of schedule, every and at, not every and at",
            "23 device[3].max_failures: must be 1 or more",
            // Found even though the first "a" has problems of its own (it was missed while they stood).
            "13 device \"a\".name: another device is named \"a\"",
        ]
        for prefix in expected {
            #expect(found.contains { $0.hasPrefix(prefix) }, "\(prefix) in \(found)")
        }
        #expect(found.count == expected.count, "\(found.joined(separator: "\n"))")
    }

    @Test func whatWouldStopTheRigAtStartIsFoundTooAllAtOnce() throws {
        let text = """
            [rig]
            name = "lab"
            journal = "missing/lab.sqlite"
            [forward.postgres]
            url = "postgresql://rig@db.lab/lab"
            password_env = "HCIPICO_TEST_UNSET"

            [[device]]
            name = "a"
            transport = "sim"
            script = "Missing.mscr"
            schedule = "once"

            [[device]]
            name = "a"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            """
        let found = try problems(text)
        let expected = [
            "3 rig.journal: ", "6 forward.postgres.password_env: HCIPICO_TEST_UNSET is not set",
            "11 device \"a\".script: cannot read", "15 device \"a\".name: another device is named \"a\"",
        ]
        for prefix in expected {
            #expect(found.contains { $0.hasPrefix(prefix) }, "\(prefix) in \(found)")
        }
        #expect(found.first { $0.hasPrefix("3 rig.journal") }?.contains("does not exist") == true, "\(found)")
        #expect(found.count == expected.count, "\(found.joined(separator: "\n"))")
    }

    @Test func aStatusPortInUseIsFoundWhenAsked() throws {
        let holder = try LoopbackPort(listening: true)
        defer { holder.close() }
        let port = holder.port
        let status = StatusConfig(host: "127.0.0.1", port: port)
        #expect(status.listenProblem() == "127.0.0.1:\(port): in use by another program")
        #expect(StatusConfig(host: "127.0.0.1", port: 0).listenProblem() == nil)
    }

    /// Without a check of its own, the parser takes the transports hcipico reaches devices over, and
    /// says where one that is not is, and why.
    @Test func theDefaultTransportCheckTakesEveryFormTheLinksTake() throws {
        func problems(_ transport: String) throws -> [String] {
            let text = """
                [rig]
                name = "forms"

                [[device]]
                name = "pico"
                address = "C0:FF:EE:00:00:01"
                transport = "\(transport)"
                script = "CV.mscr"
                schedule = "once"
                """
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            do throws(ConfigProblems) {
                _ = try RigConfigParser().parse(text: text, file: folder + "/rig.toml")
                return []
            } catch {
                return error.problems.map { "\($0.line.map(String.init) ?? "-") \($0.key): \($0.message)" }
            }
        }
        for good in ["kernel", "kernel:hci1", "user:hci0", "serial:/dev/ttyACM0@1000000", "tcp:127.0.0.1:9000"] {
            let found = try problems(good)
            #expect(found.isEmpty, "\(good): \(found)")
        }
        let refused = try problems("bogus:1")
        #expect(refused.count == 1, "\(refused)")
        #expect(refused.first?.contains("transport: invalid transport 'bogus:1' at character 1") == true, "\(refused)")
    }

    @Test func securityAndPasskeyAreReadAndChecked() throws {
        let good = """
            [rig]
            name = "secure"

            [[device]]
            name = "hm10"
            address = "C0:FF:EE:00:00:01"
            transport = "tcp:127.0.0.1:9000"
            script = "CV.mscr"
            schedule = "once"
            security = "authenticate"
            passkey = 1234

            [[device]]
            name = "pico"
            address = "C0:FF:EE:00:00:02"
            script = "CV.mscr"
            schedule = "once"
            security = "auto"
            """
        guard case .success(let config) = try parse(good) else {
            Issue.record("a good config was refused")
            return
        }
        #expect(config.devices.map(\.security) == ["authenticate", "auto"])
        #expect(config.devices.map(\.passkey) == [1234, nil])
        let bad = """
            [rig]
            name = "secure"

            [[device]]
            name = "a"
            address = "C0:FF:EE:00:00:01"
            script = "CV.mscr"
            schedule = "once"
            security = "paranoid"
            passkey = 1000000

            [[device]]
            name = "b"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            security = "encrypt"

            [[device]]
            name = "c"
            address = "C0:FF:EE:00:00:03"
            transport = "tcp:127.0.0.1:9000"
            script = "CV.mscr"
            schedule = "once"
            passkey = 5
            """
        let found = try problems(bad)
        let expected = [
            "9 device \"a\".security: \"paranoid\" is not one of encrypt, authenticate, auto",
            "10 device \"a\".passkey: must be six digits at most",
            "10 device \"a\".passkey: the kernel path pairs with Just Works only",
            "17 device \"b\".security: a simulated device does not pair",
            "25 device \"c\".passkey: is used only with security",
        ]
        for prefix in expected {
            #expect(found.contains { $0.hasPrefix(prefix) }, "\(prefix) in \(found)")
        }
        #expect(found.count == expected.count, "\(found.joined(separator: "\n"))")
    }

    @Test func aSerialPortDeviceIsReadAndItsProblemsLocated() throws {
        let good = """
            [rig]
            name = "r"
            [[device]]
            name = "bench"
            transport = "tty:/dev/serial/by-id/usb-FTDI-port0@230400"
            serial_number = "ES4SN19000123"
            search_ports = ["/dev/ttyUSB*"]
            script = "CV.mscr"
            schedule = "once"
            """
        guard case .success(let config) = try parse(good) else {
            Issue.record("\(try problems(good))")
            return
        }
        #expect(config.devices[0].serialNumber == "ES4SN19000123")
        #expect(config.devices[0].searchPorts == ["/dev/ttyUSB*"])
        let bad = """
            [rig]
            name = "r"
            [[device]]
            name = "a"
            transport = "tty:dev/ttyUSB0"
            address = "C0:FF:EE:00:00:01"
            script = "CV.mscr"
            schedule = "once"
            [[device]]
            name = "b"
            transport = "tty:/dev/ttyUSB1@fast"
            link = "low-latency"
            security = "encrypt"
            search_ports = ["ttyUSB*"]
            script = "CV.mscr"
            schedule = "once"
            [[device]]
            name = "c"
            transport = "sim"
            serial_number = "has space"
            search_ports = ["/dev/ttyUSB*"]
            script = "CV.mscr"
            schedule = "once"
            """
        let found = try problems(bad)
        #expect(
            found == [
                "5 device \"a\".transport: tty:dev/ttyUSB0: the port must be an absolute path (tty:PATH[@BAUD])",
                "6 device \"a\".address: a device on a serial port (transport = \"tty:…\") has no Bluetooth address",
                "11 device \"b\".transport: tty:/dev/ttyUSB1@fast: 'fast' is not a baud rate (tty:PATH[@BAUD])",
                "12 device \"b\".link: a serial port has no radio link to tune",
                "13 device \"b\".security: a device on a serial port does not pair",
                "14 device \"b\".search_ports: is searched for the device's serial_number: give one",
                "14 device \"b\".search_ports: \"ttyUSB*\" is not an absolute path",
                "20 device \"c\".serial_number: \"has space\" is not a serial number (printable ASCII, no spaces)",
                "20 device \"c\".serial_number: a simulated device has the serial number the rig gives it (SIM-NAME)",
                "21 device \"c\".search_ports: only a device on a serial port (transport = \"tty:…\") has it",
            ],
            "\(found)"
        )
    }

    @Test func limitsAreReadAndBadOnesLocated() throws {
        let good = """
            [rig]
            name = "limits"

            [[device]]
            name = "a"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            max_current = "1m"
            potential_window = "-0.5,1"
            """
        guard case .success(let config) = try parse(good) else {
            Issue.record("a good config was refused")
            return
        }
        #expect(config.devices.first?.limits == RunLimits(maximumCurrent: 1e-3, potentialWindow: -0.5...1))
        let bad = """
            [rig]
            name = "limits"

            [[device]]
            name = "a"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            max_current = "lots"
            potential_window = "1,-1"
            """
        #expect(
            try problems(bad) == [
                "9 device \"a\".max_current: \"lots\" is not a current in amperes (\"1m\", \"500u\")",
                "10 device \"a\".potential_window: \"1,-1\" is not LOW,HIGH in volts (\"-0.5,1\")",
            ]
        )
    }

    @Test func duplicateNamesAndABadScriptAreLocated() throws {
        let text = """
            [rig]
            name = "r"
            [[device]]
            name = "x"
            transport = "sim"
            script = "bad.mscr"
            schedule = "once"
            [[device]]
            name = "y"
            transport = "sim"
            script = "CV.mscr"
            schedule = "once"
            [[device]]
            name = "y"
            transport = "sim"
            script = "CV.mscr"
            schedule = "continuous"
            """
        guard case .failure(let problems) = try parse(text, scripts: ["bad.mscr": "e\nset_e 0\r\n\n"]) else {
            Issue.record("accepted")
            return
        }
        let lines = problems.problems.map(\.description)
        #expect(lines.count == 2, "\(lines)")
        #expect(lines[0].contains("rig.toml:6: device \"x\".script:") && lines[0].contains("line 2, column 8"))
        #expect(lines[1].contains("rig.toml:14: device \"y\".name: another device is named \"y\""))
    }

    @Test func aSyntaxErrorIsLocated() throws {
        let found = try problems("[rig]\nname = \n")
        #expect(found.count == 1 && found[0].hasPrefix("2 : column"), "\(found)")
    }

    @Test func aRigNeedsADevice() throws {
        #expect(try problems("[rig]\nname = \"r\"\n") == ["- : no [[device]] table: a rig needs at least one device"])
    }

    @Test func durationsReadAndPrintBack() {
        #expect(DurationText.seconds("500ms") == 0.5)
        #expect(DurationText.seconds("1h30m") == 5400)
        #expect(DurationText.seconds("2d") == 172_800)
        #expect(DurationText.seconds("10") == nil)
        #expect(DurationText.seconds("0s") == nil)
        #expect(DurationText.seconds("5 m") == nil)
        #expect(DurationText.text(5400) == "1h30m")
        #expect(DurationText.text(0.25) == "250ms")
        #expect(DurationText.text(12) == "12s")
    }
}
