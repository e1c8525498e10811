import BLEWire
import Testing

/// The generated tables say exactly what `Specs/ble/*.csv` say.
@Suite struct SpecTableTests {
    @Test func attOpcodesMatchTheTable() throws {
        let table = try SpecTable("att-pdus.csv")
        #expect(table.rows.count == ATTOpcode.allCases.count)
        for (row, opcode) in zip(table.rows, ATTOpcode.allCases) {
            #expect(SpecTable.code(row["opcode"]) == UInt64(opcode.rawValue))
            #expect(row["name"] == opcode.specName)
            #expect(row["kind"] == "\(opcode.kind)")
            #expect(SpecTable.code(row["answer"]) == opcode.answer.map { UInt64($0.rawValue) })
        }
    }

    @Test func attErrorCodesMatchTheTable() throws {
        let table = try SpecTable("att-errors.csv")
        #expect(table.rows.map { SpecTable.code($0["code"]) } == ATTErrorCode.allNamed.map { UInt64($0.rawValue) })
        #expect(table.rows.map { $0["name"] } == ATTErrorCode.allNamed.map(\.name))
    }

    @Test func uuidsMatchTheTable() throws {
        let table = try SpecTable("uuids.csv")
        #expect(table.rows.count == BluetoothUUID.knownNames.count)
        for (row, known) in zip(table.rows, BluetoothUUID.knownNames) {
            #expect(BluetoothUUID(try #require(row["uuid"])) == known.uuid)
            #expect(row["name"] == known.name)
        }
    }
}
