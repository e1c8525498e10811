import BLEWire
import Testing

@Suite struct ByteReaderTests {
    @Test func readsLittleEndianFieldsAndLocatesTruncation() throws {
        let bytes: [UInt8] = [0x01, 0x34, 0x12, 0x56, 0x34, 0x12, 0xAA]
        try bytes.withUnsafeBytes { buffer throws in
            var reader = ByteReader(buffer)
            #expect(try reader.readUInt8() == 0x01)
            #expect(try reader.readUInt16() == 0x1234)
            #expect(try reader.readUInt24() == 0x12_3456)
            #expect(reader.remaining == 1)
            #expect(throws: DecodeError(offset: 6, reason: .truncated(needed: 2, available: 1))) {
                try reader.readUInt16()
            }
            #expect(reader.offset == 6)
        }
    }

    @Test func writerRoundTripsThroughReader() throws {
        var writer = ByteWriter()
        writer.write(UInt16(0xBEEF))
        writer.write(UInt32(0xDEAD_BEEF))
        writer.write(UInt64(0x0102_0304_0506_0708))
        #expect(writer.bytes.prefix(2) == [0xEF, 0xBE])
        try writer.bytes.withUnsafeBytes { buffer throws in
            var reader = ByteReader(buffer)
            #expect(try reader.readUInt16() == 0xBEEF)
            #expect(try reader.readUInt32() == 0xDEAD_BEEF)
            #expect(try reader.readUInt64() == 0x0102_0304_0506_0708)
            try reader.expectEnd()
        }
    }
}

@Suite struct BluetoothAddressTests {
    @Test func parsesAndPrintsMostSignificantFirst() throws {
        let address = try #require(BluetoothAddress("F0:11:22:33:44:5a", type: .random))
        #expect(address.description == "F0:11:22:33:44:5A")
        #expect(address.wireBytes == [0x5A, 0x44, 0x33, 0x22, 0x11, 0xF0])
        #expect(BluetoothAddress(wireBytes: address.wireBytes, type: .random) == address)
    }

    @Test(arguments: [
        "", "F0:11:22:33:44", "F0:11:22:33:44:55:66", "G0:11:22:33:44:55", "F0:1:22:33:44:555", "F0:11:22:33:44:5",
    ])
    func rejectsAnythingButSixHexOctets(_ text: String) {
        #expect(BluetoothAddress(text) == nil)
    }
}
