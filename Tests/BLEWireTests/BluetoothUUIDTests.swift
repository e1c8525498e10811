import BLEWire
import Testing

@Suite struct BluetoothUUIDTests {
    @Test func shortUUIDsSitOnTheBaseUUID() throws {
        let cccd = BluetoothUUID(0x2902)
        #expect(cccd == BluetoothUUID("00002902-0000-1000-8000-00805f9b34fb"))
        #expect(cccd == BluetoothUUID(uuid32: 0x2902))
        #expect(cccd.uuid16 == 0x2902)
        #expect(cccd.description == "2902")
        #expect(cccd.knownName == "Client Characteristic Configuration")
        #expect(BluetoothUUID(uuid32: 0x1234_5678).uuid16 == nil)
        #expect(BluetoothUUID(uuid32: 0x1234_5678).description == "12345678")
        #expect(Set([cccd, BluetoothUUID("2902")!, BluetoothUUID("0x2902")!]).count == 1)
    }

    @Test func vendorUUIDsPrintAndParse() throws {
        let tx = BluetoothUUID.lairdVSPTx
        #expect(tx.description == "569A2000-B87F-490C-92CB-11BA5EA5167C")
        #expect(BluetoothUUID(tx.description) == tx)
        #expect(tx.uuid16 == nil && tx.uuid32 == nil)
        #expect(BluetoothUUID.nordicUARTService.description == "6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        #expect(BluetoothUUID.hm10Characteristic == BluetoothUUID(0xFFE1))
        #expect(tx.bigEndianBytes.prefix(4) == [0x56, 0x9A, 0x20, 0x00])
    }

    @Test(arguments: [
        "", "123", "12345", "2902x", "0x", "569a2000-b87f-490c-92cb-11ba5ea5167",
        "569a2000b87f-490c-92cb-11ba5ea5167cc",
    ])
    func rejectsMalformedText(_ text: String) {
        #expect(BluetoothUUID(text) == nil)
    }

    @Test func wireFormIsLittleEndian() throws {
        #expect(BluetoothUUID(0x2800).attWidth == 2)
        var writer = ByteWriter()
        BluetoothUUID.lairdVSPService.encode(into: &writer)
        #expect(
            writer.bytes == [
                0x7C, 0x16, 0xA5, 0x5E, 0xBA, 0x11, 0xCB, 0x92, 0x0C, 0x49, 0x7F, 0xB8, 0x01, 0x11, 0x9A, 0x56,
            ]
        )
        writer.reset()
        BluetoothUUID(0x180A).encode(into: &writer, width: 4)
        #expect(writer.bytes == [0x0A, 0x18, 0x00, 0x00])
        try ([0x0A, 0x18, 0x00, 0x00, 0xFF] as [UInt8]).withUnsafeBytes { buffer throws in
            var reader = ByteReader(buffer)
            let uuid = try BluetoothUUID(parsing: &reader, width: 4)
            guard uuid == .deviceInformationService, reader.offset == 4 else {
                throw DecodeError(offset: reader.offset, reason: .invalidValue(field: "uuid", value: 0))
            }
        }
        #expect(throws: DecodeError(offset: 0, reason: .invalidValue(field: "UUID length", value: 3))) {
            try ([0x00, 0x28, 0x00] as [UInt8]).withUnsafeBytes { buffer throws in
                var reader = ByteReader(buffer)
                _ = try BluetoothUUID(parsing: &reader, width: 3)
            }
        }
    }
}
