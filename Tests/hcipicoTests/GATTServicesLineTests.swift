import BLEHost
import BLEWire
import Foundation
import Testing

@testable import hcipico

/// The lines `hcipico gatt services` prints for services and the services they include.
@Suite struct GATTServicesLineTests {
    static let battery = GATTService(uuid: BluetoothUUID(0x180F), handle: 0x0010, endHandle: 0x0013, isPrimary: false)
    static let host = GATTService(uuid: BluetoothUUID(0x1812), handle: 0x0014, endHandle: 0x0030)

    @Test func aSecondaryServiceIsMarkedInTextAndJSON() throws {
        #expect(
            GATTServicesCommand.line(Self.battery, json: false) == "secondary service 180F Battery  0x0010–0x0013\n"
        )
        #expect(GATTServicesCommand.line(Self.host, json: false).hasPrefix("service 1812 "))
        let object = try Self.object(GATTServicesCommand.line(Self.battery, json: true))
        #expect(object["type"] as? String == "service" && object["primary"] as? Bool == false)
        #expect(object["handle"] as? Int == 0x10 && object["end_handle"] as? Int == 0x13)
        let primary = try Self.object(GATTServicesCommand.line(Self.host, json: true))
        #expect(primary["primary"] as? Bool == true)
    }

    @Test func anIncludeNamesTheIncludedRangeAndItsDeclaration() throws {
        let include = GATTIncludedService(declarationHandle: 0x0015, service: Self.battery)
        #expect(
            GATTServicesCommand.line(include, in: Self.host, json: false)
                == "  include 180F Battery  0x0010–0x0013  declaration 0x0015\n"
        )
        let object = try Self.object(GATTServicesCommand.line(include, in: Self.host, json: true))
        #expect(object["type"] as? String == "include" && object["uuid"] as? String == "180F")
        #expect(object["service"] as? Int == 0x14 && object["handle"] as? Int == 0x15)
        #expect(object["start_handle"] as? Int == 0x10 && object["end_handle"] as? Int == 0x13)
    }

    static func object(_ line: String) throws -> [String: Any] {
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}
