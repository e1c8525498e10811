import BLEWire
import SpecTables
import Testing

@Suite struct AdvertisingDataTests {
    /// Flags, Complete Local Name "PicoSim", the Laird VSP service (128-bit), TX power −4 dBm,
    /// service data for 0xFEED, manufacturer data for company 0x0077, then zero padding.
    static let advert: [UInt8] =
        [0x02, 0x01, 0x06]
        + [0x08, 0x09] + Array("PicoSim".utf8)
        + [0x11, 0x07, 0x7C, 0x16, 0xA5, 0x5E, 0xBA, 0x11, 0xCB, 0x92, 0x0C, 0x49, 0x7F, 0xB8, 0x01, 0x11, 0x9A, 0x56]
        + [0x02, 0x0A, 0xFC]
        + [0x04, 0x16, 0xED, 0xFE, 0x2A]
        + [0x05, 0xFF, 0x77, 0x00, 0x01, 0x02]
        + [0x00, 0x00]

    @Test func decodesTheFieldsACentralFiltersOn() throws {
        let data = try AdvertisingData(bytes: Self.advert)
        #expect(data.flags == 0x06)
        #expect(data.localName == "PicoSim" && data.isLocalNameComplete)
        #expect(data.serviceUUIDs == [.lairdVSPService])
        #expect(data.advertises(.lairdVSPService))
        #expect(data.txPowerLevel == -4)
        #expect(data.manufacturerData == [.init(companyID: 0x0077, data: [0x01, 0x02])])
        #expect(data.serviceData == [.init(uuid: BluetoothUUID(0xFEED), data: [0x2A])])
        #expect(data.other.isEmpty)
        // Re-encoding gives the same structures (without the padding).
        #expect(data.encodedBytes == Array(Self.advert.dropLast(2)))
    }

    @Test func readerWalksStructuresInPlace() throws {
        let walked: [(UInt8, Int, Int)] = try Self.advert.withUnsafeBytes { buffer throws in
            var reader = AdvertisingDataReader(buffer)
            var result: [(UInt8, Int, Int)] = []
            while let element = try reader.next() {
                #expect(element.data.baseAddress == buffer.baseAddress! + element.offset + 2)
                result.append((element.type.rawValue, element.offset, element.data.count))
            }
            return result
        }
        #expect(walked.map(\.0) == [0x01, 0x09, 0x07, 0x0A, 0x16, 0xFF])
        #expect(walked.map(\.1) == [0, 3, 12, 30, 33, 38])
        #expect(walked.map(\.2) == [1, 7, 16, 1, 3, 4])
    }

    @Test func roundTripsEveryUUIDWidthAndShortName() throws {
        let data = AdvertisingData(
            flags: 0x05,
            localName: "HM",
            isLocalNameComplete: false,
            serviceUUIDs: [.hm10Service, BluetoothUUID(uuid32: 0x1234_5678), .nordicUARTService],
            appearance: 0x0340,
            other: [.init(type: .uri, data: [0x17, 0x2F])]
        )
        let bytes = data.encodedBytes
        #expect(bytes.prefix(6) == [0x02, 0x01, 0x05, 0x03, 0x08, 0x48])
        #expect(try AdvertisingData(bytes: bytes) == data)
    }

    @Test func malformedStructuresAreLocated() {
        // Second structure claims 5 octets, 2 are left.
        #expect(throws: DecodeError(offset: 3, reason: .lengthMismatch(declared: 5, actual: 2))) {
            try AdvertisingData(bytes: [0x02, 0x01, 0x06, 0x05, 0x09, 0x41])
        }
        // A 16-bit UUID list of three octets.
        #expect(throws: DecodeError(offset: 1, reason: .invalidValue(field: "AD data length", value: 3))) {
            try AdvertisingData(bytes: [0x04, 0x03, 0x0D, 0x18, 0x0F])
        }
        // Manufacturer data without a whole company identifier.
        #expect(throws: DecodeError(offset: 1, reason: .invalidValue(field: "AD data length", value: 1))) {
            try AdvertisingData(bytes: [0x02, 0xFF, 0x77])
        }
        #expect(throws: DecodeError(offset: 1, reason: .invalidValue(field: "AD data length", value: 0))) {
            try AdvertisingData(bytes: [0x01, 0x01])
        }
    }

    @Test func emptyAndPaddedDataDecodeToNothing() throws {
        #expect(try AdvertisingData(bytes: []) == AdvertisingData())
        #expect(try AdvertisingData(bytes: [0x00, 0xFF, 0xFF]) == AdvertisingData())
    }

    @Test func adTypesMatchTheTable() throws {
        let table = try SpecTable("Specs/ble/ad-types.csv")
        #expect(
            table.rows.map { SpecTable.code($0["code"]) } == AdvertisingDataType.allNamed.map { UInt64($0.rawValue) }
        )
        #expect(table.rows.map { $0["name"] } == AdvertisingDataType.allNamed.map(\.name))
        #expect(
            table.rows.map { $0["uuid_width"].flatMap { Int($0) } } == AdvertisingDataType.allNamed.map(\.uuidWidth)
        )
    }

    /// A fuzzer's finding: `81 09` + 128 × `ff` decodes to a 384-byte name (each invalid byte becomes
    /// U+FFFD); encoding it must not write a wrapped length octet.
    @Test func aNameLongerThanAFieldIsCutAndMarkedShortened() throws {
        let decoded = try AdvertisingData(bytes: [0x81, 0x09] + Array(repeating: 0xFF, count: 128))
        #expect(decoded.localName?.utf8.count == 384)
        let encoded = decoded.encodedBytes
        #expect(Int(encoded[0]) == encoded.count - 1, "the length octet covers exactly the structure")
        #expect(encoded[1] == 0x08, "Shortened Local Name")
        let again = try AdvertisingData(bytes: encoded)
        #expect(again.localName == String(repeating: "\u{FFFD}", count: 84))
        #expect(again.encodedBytes == encoded)
    }

    /// A fuzzer's finding: 64 UUIDs of 32 bits (256 bytes) were cut at 254 bytes, in the middle of a
    /// UUID, which no decoder takes. A list is cut after its last whole UUID and sent as incomplete.
    @Test func aUUIDListLongerThanAFieldIsCutAtAUUIDAndMarkedIncomplete() throws {
        let uuids32 = (0..<64).map { BluetoothUUID(uuid32: 0x0001_0000 + UInt32($0)) }
        let uuids128 = (0..<16).map { BluetoothUUID(high: 0x569A_1101_B87F_490C, low: UInt64($0)) }
        let uuids16 = (0..<127).map { BluetoothUUID(UInt16(0x1800 + $0)) }
        let encoded = AdvertisingData(serviceUUIDs: uuids16 + uuids32 + uuids128).encodedBytes
        let again = try AdvertisingData(bytes: encoded)
        #expect(again.serviceUUIDs == uuids16 + uuids32.prefix(63) + uuids128.prefix(15))
        let types: [AdvertisingDataType] = try encoded.withUnsafeBytes { buffer throws in
            var reader = AdvertisingDataReader(buffer)
            var types: [AdvertisingDataType] = []
            while let element = try reader.next() { types.append(element.type) }
            return types
        }
        #expect(types == [.completeServiceUUIDs16, .incompleteServiceUUIDs32, .incompleteServiceUUIDs128])
    }
}
