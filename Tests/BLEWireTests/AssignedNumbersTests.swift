import BLEWire
import SpecTables
import Testing

/// The Bluetooth SIG's names reach every lookup: each row of the three tables, and the names a user
/// found missing before the tables were complete.
@Suite struct AssignedNumbersTests {
    @Test func everyAssignedUUIDIsFoundByNumber() throws {
        let table = try SpecTable("Specs/ble/assigned-uuids.csv")
        #expect(table.rows.count > 1300)
        for row in table.rows {
            let code = try #require(SpecTable.code(row["uuid"]))
            let found = AssignedNumbers.uuid(UInt16(code))
            #expect(found?.name == row["name"] && found?.kind.rawValue == row["kind"], "\(row)")
        }
        #expect(AssignedNumbers.uuid(0x2A39)?.name == "Heart Rate Control Point")
        #expect(AssignedNumbers.uuid(0x2A2A)?.name == "IEEE 11073-20601 Regulatory Certification Data List")
        #expect(AssignedNumbers.uuid(0x2AA6)?.name == "Central Address Resolution")
        #expect(AssignedNumbers.uuid(0x2803)?.kind == .declaration)
        #expect(AssignedNumbers.uuid(0xFE59)?.kind == .member)
        #expect(AssignedNumbers.uuid(0x1234) == nil && AssignedNumbers.uuid(0x0000) == nil)
    }

    @Test func knownNamesPreferTheProjectTableThenTheSIG() {
        #expect(BluetoothUUID(0x180F).knownName == "Battery")
        #expect(BluetoothUUID(0x2A39).knownName == "Heart Rate Control Point")
        #expect(BluetoothUUID.lairdVSPService.knownName == "Laird Virtual Serial Port service")
        #expect(BluetoothUUID(0xFFE0).knownName == "HM-10 serial service")
        #expect(BluetoothUUID(uuid32: 0x0001_2A39).knownName == nil)
    }

    @Test func everyCompanyAndAppearanceIsFound() throws {
        let companies = try SpecTable("Specs/ble/company-ids.csv")
        #expect(companies.rows.count > 4000)
        for row in companies.rows {
            #expect(AssignedNumbers.company(UInt16(try #require(SpecTable.code(row["id"])))) == row["name"])
        }
        #expect(AssignedNumbers.company(0x0059) == "Nordic Semiconductor ASA")
        #expect(AssignedNumbers.company(0xFFFF) == nil)

        let appearance = try SpecTable("Specs/ble/appearance.csv")
        for row in appearance.rows {
            let value = UInt16(try #require(SpecTable.code(row["value"])))
            let sub = row["subcategory"] ?? ""
            #expect(
                AssignedNumbers.appearance(value) == (sub.isEmpty ? row["category"] : "\(row["category"]!): \(sub)")
            )
        }
        #expect(AssignedNumbers.appearance(0x0341) == "Heart Rate Sensor: Heart Rate Belt")
        #expect(AssignedNumbers.appearance(0x00C0) == "Watch")
        #expect(AssignedNumbers.appearance(0x00FF) == "Watch (subcategory 63)")
        #expect(AssignedNumbers.appearance(0xFFC0) == nil)
    }

    @Test func everyATTErrorCodeHasAName() {
        for code in UInt8.min...UInt8.max {
            #expect(ATTErrorCode(rawValue: code).name != nil, "0x\(String(code, radix: 16))")
        }
        #expect(ATTErrorCode(rawValue: 0x80).description == "Application Error (0x80)")
        #expect(ATTErrorCode(rawValue: 0x9F).description == "Application Error (0x9F)")
        #expect(ATTErrorCode(rawValue: 0xFD).description.hasPrefix("Client Characteristic Configuration Descriptor"))
        #expect(ATTErrorCode(rawValue: 0xE0).description == "Common Profile and Service Error (0xE0)")
        #expect(ATTErrorCode(rawValue: 0x42).description == "Reserved (0x42)")
    }
}
