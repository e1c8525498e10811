import Testing

@testable import BLELinux

@Suite struct TransportSpecTests {
    static let good: [(String, TransportSpec)] = [
        ("kernel", .kernel(adapter: nil)),
        ("kernel:hci1", .kernel(adapter: HCIAdapterName(index: 1))),
        ("user:hci0", .userChannel(adapter: HCIAdapterName(index: 0))),
        ("user:hci65534", .userChannel(adapter: HCIAdapterName(index: 65534))),
        ("serial:/dev/ttyACM0", .serial(device: "/dev/ttyACM0", baudRate: 115_200, flowControl: false)),
        ("serial:/dev/ttyACM0@1000000", .serial(device: "/dev/ttyACM0", baudRate: 1_000_000, flowControl: false)),
        ("serial:/dev/ttyUSB1@3000000,rtscts", .serial(device: "/dev/ttyUSB1", baudRate: 3_000_000, flowControl: true)),
        (
            "serial:/dev/serial/by-id/usb-1a86,rtscts",
            .serial(device: "/dev/serial/by-id/usb-1a86", baudRate: 115_200, flowControl: true)
        ),
        ("tcp:localhost:9000", .tcp(host: "localhost", port: 9000)),
        ("tcp:127.0.0.1:1", .tcp(host: "127.0.0.1", port: 1)),
        ("tcp:[::1]:65535", .tcp(host: "::1", port: 65535)),
    ]

    @Test func acceptedFormsParseAndPrintBack() throws {
        for (text, expected) in Self.good {
            let spec = try TransportSpec(parsing: text)
            #expect(spec == expected, "\(text)")
            #expect(try TransportSpec(parsing: spec.description) == spec, "round trip of \(text)")
        }
    }

    /// Each malformed value, the character its error points at, and a word of the problem.
    static let bad: [(String, Int, String)] = [
        ("", 1, "empty"),
        (":hci0", 1, "missing"),
        ("usb:hci0", 1, "unknown transport kind 'usb'"),
        ("Kernel", 1, "unknown"),
        ("kernel:", 8, "missing"),
        ("kernel:hc0", 8, "starts with 'hci'"),
        ("user", 5, "needs an adapter"),
        ("user:hci", 9, "missing"),
        ("user:hci0x", 10, "'x' is not a decimal digit"),
        ("user:hci01", 9, "leading zero"),
        ("user:hci65535", 9, "above 65534"),
        ("serial:", 8, "path is missing"),
        ("serial:ttyACM0", 8, "absolute path"),
        ("serial:/dev/ttyACM0@999", 21, "not a baud rate"),
        ("serial:/dev/ttyACM0@fast", 21, "not a baud rate"),
        ("serial:/dev/ttyACM0@1000000,crtscts", 29, "unknown serial option"),
        ("tcp:", 5, "HOST:PORT"),
        ("tcp:localhost", 5, "HOST:PORT"),
        ("tcp::9000", 5, "host is missing"),
        ("tcp:localhost:0", 15, "not a port number"),
        ("tcp:localhost:65536", 15, "not a port number"),
        ("tcp:localhost:http", 15, "not a port number"),
        ("tcp:::1:9000", 5, "brackets"),
        ("tcp:[]:9000", 5, "[address]"),
        ("tcp:local host:9000", 10, "cannot be in a host name"),
        ("tcp:[fe80::1 x]:9000", 13, "cannot be in a host name"),
        ("serial:/dev/serial/by-id/usb-x@y,rtscts", 32, "not a baud rate"),
    ]

    @Test func malformedValuesAreLocatedAndListTheAcceptedForms() {
        for (text, position, problem) in Self.bad {
            do throws(ArgumentSyntaxError) {
                let spec = try TransportSpec(parsing: text)
                Issue.record("'\(text)' parsed as \(spec)")
            } catch {
                #expect(error.position == position, "'\(text)': \(error)")
                #expect(error.problem.contains(problem) || error.description.contains(problem), "'\(text)': \(error)")
                #expect(error.description.contains(TransportSpec.acceptedForms), "'\(text)'")
                #expect(error.description.hasPrefix("invalid transport '\(text)'"))
            }
        }
    }

    @Test func environmentGivesTheTransportWhenTheOptionIsAbsent() throws {
        let environment = ["HCIPICO_TRANSPORT": "tcp:127.0.0.1:7777"]
        #expect(try TransportSpec.resolve(nil, environment: environment) == .tcp(host: "127.0.0.1", port: 7777))
        #expect(
            try TransportSpec.resolve("user:hci2", environment: environment)
                == .userChannel(adapter: HCIAdapterName(index: 2))
        )
        #expect(try TransportSpec.resolve(nil, environment: [:]) == .kernel(adapter: nil))
        #expect(throws: ArgumentSyntaxError.self) {
            try TransportSpec.resolve(nil, environment: ["HCIPICO_TRANSPORT": "bogus"])
        }
    }

    @Test func everyListedBaudRateIsAccepted() throws {
        for rate in TransportSpec.baudRates {
            #expect(
                try TransportSpec(parsing: "serial:/dev/ttyS0@\(rate)")
                    == .serial(device: "/dev/ttyS0", baudRate: rate, flowControl: false)
            )
        }
    }
}
