import BLEWire
import Testing

@testable import BLELinux

@Suite struct ArgumentValidationTests {
    @Test func addressesParseMostSignificantFirst() throws {
        let address = try BluetoothAddress(parsing: "AA:bb:0C:dd:EE:0f", type: .random)
        #expect(address.value == 0xAABB_0CDD_EE0F)
        #expect(address.type == .random)
        #expect(address.wireBytes == [0x0F, 0xEE, 0xDD, 0x0C, 0xBB, 0xAA])
        #expect(address.description == "AA:BB:0C:DD:EE:0F")
    }

    static let badAddresses: [(String, Int, String)] = [
        ("", 1, "ends after 0 octets"),
        ("AA:BB:CC:DD:EE", 15, "ends after 5 octets"),
        ("AA:BB:CC:DD:EE:F", 17, "ends after 5 octets"),
        ("AA:BB:CC:DD:EE:FF:00", 18, "after the sixth octet"),
        ("AA-BB-CC-DD-EE-FF", 3, "expected ':'"),
        ("AABBCCDDEEFF", 3, "expected ':'"),
        ("AA:BB:CG:DD:EE:FF", 8, "'G' is not a hex digit"),
        ("A:BB:CC:DD:EE:FF", 2, "':' is not a hex digit"),
        (" AA:BB:CC:DD:EE:FF", 1, "' ' is not a hex digit"),
        ("AA:BB:CC:DD:EE:FF ", 18, "after the sixth octet"),
    ]

    @Test func malformedAddressesAreLocated() {
        for (text, position, problem) in Self.badAddresses {
            do throws(ArgumentSyntaxError) {
                let address = try BluetoothAddress(parsing: text, type: .public)
                Issue.record("'\(text)' parsed as \(address)")
            } catch {
                #expect(error.position == position, "'\(text)': \(error)")
                #expect(error.problem.contains(problem), "'\(text)': \(error)")
                #expect(error.description.contains("AA:BB:CC:DD:EE:FF"), "the accepted form is shown")
            }
        }
    }

    @Test func everyOctetValueRoundTrips() throws {
        for value in UInt8.min...UInt8.max {
            let hex = (value < 0x10 ? "0" : "") + String(value, radix: 16)
            let text = Array(repeating: hex, count: 6).joined(separator: ":")
            let address = try BluetoothAddress(parsing: text, type: .public)
            #expect(address.wireBytes == Array(repeating: value, count: 6))
        }
    }

    @Test func adapterNames() throws {
        #expect(try HCIAdapterName(parsing: "hci0").index == 0)
        #expect(try HCIAdapterName(parsing: "hci12").description == "hci12")
        for bad in ["", "hci", "HCI0", "hci-1", "hci0 ", "hci00", "hci65535", "hci99999", "eth0"] {
            #expect(throws: ArgumentSyntaxError.self, "\(bad)") { try HCIAdapterName(parsing: bad) }
        }
    }
}
