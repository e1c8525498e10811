import BLEHost
import BLEWire
import DeviceLinks
import Foundation
import Testing

/// The lines `hcipico gatt services` prints for services and the services they include.
@Suite struct GATTProfileListingTests {
    static let battery = GATTService(uuid: BluetoothUUID(0x180F), handle: 0x0010, endHandle: 0x0013, isPrimary: false)
    static let host = GATTService(uuid: BluetoothUUID(0x1812), handle: 0x0014, endHandle: 0x0030)

    @Test func aSecondaryServiceIsMarkedInTextAndJSON() throws {
        #expect(
            GATTProfileListing.line(Self.battery, json: false) == "secondary service 180F Battery  0x0010–0x0013\n"
        )
        #expect(GATTProfileListing.line(Self.host, json: false).hasPrefix("service 1812 "))
        let object = try Self.object(GATTProfileListing.line(Self.battery, json: true))
        #expect(object["type"] as? String == "service" && object["primary"] as? Bool == false)
        #expect(object["handle"] as? Int == 0x10 && object["end_handle"] as? Int == 0x13)
        let primary = try Self.object(GATTProfileListing.line(Self.host, json: true))
        #expect(primary["primary"] as? Bool == true)
    }

    @Test func anIncludeNamesTheIncludedRangeAndItsDeclaration() throws {
        let include = GATTIncludedService(declarationHandle: 0x0015, service: Self.battery)
        #expect(
            GATTProfileListing.line(include, in: Self.host, json: false)
                == "  include 180F Battery  0x0010–0x0013  declaration 0x0015\n"
        )
        let object = try Self.object(GATTProfileListing.line(include, in: Self.host, json: true))
        #expect(object["type"] as? String == "include" && object["uuid"] as? String == "180F")
        #expect(object["service"] as? Int == 0x14 && object["handle"] as? Int == 0x15)
        #expect(object["start_handle"] as? Int == 0x10 && object["end_handle"] as? Int == 0x13)
    }

    @Test func aCharacteristicShowsItsPropertiesHandlesAndTextValueAndADescriptorItsHandle() throws {
        let name = GATTCharacteristic(
            uuid: .deviceName,
            declarationHandle: 0x0002,
            valueHandle: 0x0003,
            properties: [.read, .writeWithoutResponse, .notify],
            endHandle: 0x0004
        )
        #expect(
            GATTProfileListing.line(name, in: Self.host, value: "Pico \"1\"", json: false)
                == "  characteristic 2A00 Device Name  [read write-without-response notify]"
                + "  declaration 0x0002 value 0x0003  \"Pico \"1\"\"\n"
        )
        let object = try Self.object(GATTProfileListing.line(name, in: Self.host, value: "Pico \"1\"", json: true))
        #expect(object["properties"] as? [String] == ["read", "write-without-response", "notify"])
        #expect(object["value_text"] as? String == "Pico \"1\"" && object["value_handle"] as? Int == 3)
        let descriptor = GATTDescriptor(uuid: BluetoothUUID(0x2902), handle: 0x0004)
        #expect(GATTProfileListing.line(descriptor, of: name, json: false).hasSuffix("  0x0004\n"))
        let described = try Self.object(GATTProfileListing.line(descriptor, of: name, json: true))
        #expect(described["characteristic"] as? Int == 3 && described["handle"] as? Int == 4)
    }

    static func object(_ line: String) throws -> [String: Any] {
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}
