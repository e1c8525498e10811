import BLELinux
import BLEWire
import DeviceLinks
import Testing

/// How a person names a device, and the transport an address is reached over, read before anything
/// is opened: every form, and every misuse refused as bad input with what is wrong.
@Suite struct DeviceTargetParsingTests {
    static let none: [String: String] = [:]

    @Test func eachFormNamesItsDevice() throws {
        #expect(try DeviceTarget(parsing: "sim", environment: Self.none) == .simulator(.pico))
        #expect(try DeviceTarget(parsing: "sim:calculator", environment: Self.none) == .simulator(.calculator))
        let port = try DeviceTarget(parsing: "tty:/dev/ttyUSB0@115200", environment: Self.none)
        #expect(port == .serialPort(try #require(try SerialPortSpec(parsing: "tty:/dev/ttyUSB0@115200"))))
        let address = try BluetoothAddress(parsing: "AA:BB:CC:DD:EE:FF", type: .random)
        let radio = try DeviceTarget(parsing: "AA:BB:CC:DD:EE:FF", random: true, environment: Self.none)
        #expect(radio == .radio(address, .kernel(adapter: nil)))
        let hci1 = try DeviceTarget(parsing: "AA:BB:CC:DD:EE:FF", random: true, adapter: "hci1", environment: Self.none)
        #expect(hci1 == .radio(address, .kernel(adapter: try HCIAdapterName(parsing: "hci1"))))
    }

    @Test func anAddressTakesItsTransportFromTheOptionElseTheEnvironment() throws {
        let environment = [TransportSpec.environmentVariable: "tcp:127.0.0.1:9000"]
        let fromEnvironment = try DeviceTarget(parsing: "AA:BB:CC:DD:EE:FF", environment: environment)
        let given = try DeviceTarget(parsing: "AA:BB:CC:DD:EE:FF", transport: "user:hci0", environment: environment)
        guard case .radio(_, let spec) = fromEnvironment, case .radio(_, let chosen) = given else {
            Issue.record("not radio targets")
            return
        }
        #expect(spec == (try TransportSpec(parsing: "tcp:127.0.0.1:9000")))
        #expect(chosen == (try TransportSpec(parsing: "user:hci0")))
    }

    @Test(arguments: [
        ("sim:toaster", "unknown simulator 'sim:toaster': the simulators are sim:pico"),
        ("AA:BB:CC:DD:EE:GG", "AA:BB:CC:DD:EE:GG"),
        ("tty:relative", "tty:"),
    ])
    func aMalformedDeviceIsBadInputThatSaysWhy(_ device: String, _ expected: String) {
        #expect {
            try DeviceTarget(parsing: device, environment: Self.none)
        } throws: { error in
            guard let error = error as? LinkOpenError, case .badInput = error.cause else { return false }
            return error.description.contains(expected)
        }
    }

    @Test func transportOptionsAreRefusedWhereTheyDoNotApply() {
        func refusal(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch {
                guard let error = error as? LinkOpenError, case .badInput = error.cause else {
                    return "not bad input: \(error)"
                }
                return error.description
            }
        }
        let serial = refusal { _ = try DeviceTarget(parsing: "tty:/dev/ttyUSB0", random: true, environment: Self.none) }
        #expect(serial?.contains("is a serial port") == true)
        let adapter = refusal {
            _ = try DeviceTarget(
                parsing: "AA:BB:CC:DD:EE:FF",
                adapter: "hci0",
                transport: "user:hci0",
                environment: Self.none
            )
        }
        #expect(adapter == "--adapter goes with the kernel transport; give user:hci0 instead")
        let badAdapter = refusal { _ = try TransportSpec.resolve(nil, adapter: "wlan0", environment: Self.none) }
        #expect(badAdapter?.isEmpty == false)
        let badTransport = refusal {
            _ = try TransportSpec.resolve("carrier-pigeon", adapter: nil, environment: Self.none)
        }
        #expect(badTransport?.contains("transport") == true)
    }

    @Test func aFileNameStartsWithTheDeviceAsItWasNamed() throws {
        #expect(try DeviceTarget(parsing: "sim", environment: Self.none).fileNamePart == "sim-pico")
        let radio = try DeviceTarget(parsing: "AA:BB:CC:DD:EE:FF", environment: Self.none)
        #expect(radio.fileNamePart == "AA:BB:CC:DD:EE:FF")
        let port = try DeviceTarget(parsing: "tty:/dev/serial/by-id/usb-FTDI-if00@230400", environment: Self.none)
        #expect(port.fileNamePart == "usb-FTDI-if00")
    }
}
