import BLEWire
import SpecTables
import Testing

/// The generated tables say exactly what `Specs/ble/*.csv` say.
@Suite struct SpecTableTests {
    @Test func attOpcodesMatchTheTable() throws {
        let table = try SpecTable("Specs/ble/att-pdus.csv")
        #expect(table.rows.count == ATTOpcode.allCases.count)
        for (row, opcode) in zip(table.rows, ATTOpcode.allCases) {
            #expect(SpecTable.code(row["opcode"]) == UInt64(opcode.rawValue))
            #expect(row["name"] == opcode.specName)
            #expect(row["kind"] == "\(opcode.kind)")
            #expect(SpecTable.code(row["answer"]) == opcode.answer.map { UInt64($0.rawValue) })
        }
    }

    @Test func attErrorCodesMatchTheTable() throws {
        let all = try SpecTable("Specs/ble/att-errors.csv").rows
        let table = all.filter { $0["code"]?.contains("-") == false }
        #expect(table.map { SpecTable.code($0["code"]) } == ATTErrorCode.allNamed.map { UInt64($0.rawValue) })
        #expect(table.map { $0["name"] } == ATTErrorCode.allNamed.map(\.name))
        for range in all where range["code"]?.contains("-") == true {
            let bounds = try #require(range["code"]).split(separator: "-").map { SpecTable.code(String($0)) }
            let low = try #require(bounds[0])
            let high = try #require(bounds[1])
            for code in low...high where !table.contains(where: { SpecTable.code($0["code"]) == code }) {
                #expect(ATTErrorCode(rawValue: UInt8(code)).name == range["name"])
            }
        }
    }

    @Test func uuidsMatchTheTable() throws {
        let table = try SpecTable("Specs/ble/uuids.csv")
        #expect(table.rows.count == BluetoothUUID.knownNames.count)
        for (row, known) in zip(table.rows, BluetoothUUID.knownNames) {
            #expect(BluetoothUUID(try #require(row["uuid"])) == known.uuid)
            #expect(row["name"] == known.name)
        }
    }
}

@Suite struct HCISpecTableTests {
    @Test func hciCommandsMatchTheTable() throws {
        let table = try SpecTable("Specs/ble/hci-commands.csv")
        #expect(table.rows.count == HCICommand.table.count)
        for (row, entry) in zip(table.rows, HCICommand.table) {
            #expect(SpecTable.code(row["opcode"]) == UInt64(entry.opcode))
            #expect(row["name"] == entry.name)
            #expect(row["supported"] == (entry.supported.map { "\($0.octet).\($0.bit)" } ?? ""))
        }
    }

    @Test func hciEventsMatchTheTable() throws {
        let table = try SpecTable("Specs/ble/hci-events.csv")
        #expect(table.rows.count == HCIEvent.table.count)
        for (row, entry) in zip(table.rows, HCIEvent.table) {
            #expect(SpecTable.code(row["code"]) == UInt64(entry.code))
            #expect(SpecTable.code(row["subevent"]) == entry.subevent.map(UInt64.init))
            #expect(row["name"] == entry.name)
        }
    }

    @Test func hciStatusAndSignalingMatchTheTables() throws {
        let status = try SpecTable("Specs/ble/hci-errors.csv")
        #expect(status.rows.map { SpecTable.code($0["code"]) } == HCIStatus.allNamed.map { UInt64($0.rawValue) })
        #expect(status.rows.map { $0["name"] } == HCIStatus.allNamed.map(\.name))
        let signaling = try SpecTable("Specs/ble/l2cap-signaling.csv")
        #expect(
            signaling.rows.map { SpecTable.code($0["code"]) } == L2CAPSignalingCommand.table.map { UInt64($0.code) }
        )
        #expect(signaling.rows.map { $0["name"] } == L2CAPSignalingCommand.table.map(\.name))
    }
}
