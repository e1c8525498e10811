import BLEWire
import Testing

@Suite struct L2CAPSignalingTests {
    @Test func connectionParameterUpdateRequestLayout() throws {
        // Vol 3 Part A §4.20: code 0x12, identifier, length 8, then the four parameters.
        let bytes: [UInt8] = [0x12, 0x07, 0x08, 0x00, 0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x2C, 0x01]
        let request = L2CAPConnectionParameterUpdateRequest(
            identifier: 7,
            intervalMin: 6,
            intervalMax: 12,
            latency: 0,
            timeout: 300
        )
        #expect(request.encodedBytes == bytes)
        #expect(try L2CAPSignalingCommand(bytes: bytes) == .connectionParameterUpdateRequest(request))
        let response = L2CAPConnectionParameterUpdateResponse(identifier: 7, result: 0)
        #expect(response.encodedBytes == [0x13, 0x07, 0x02, 0x00, 0x00, 0x00])
    }

    @Test func commandRejectCarriesData() throws {
        let reject = L2CAPCommandReject(identifier: 3, reason: 0x0000, data: [])
        #expect(reject.encodedBytes == [0x01, 0x03, 0x02, 0x00, 0x00, 0x00])
        #expect(L2CAPSignalingCommand.commandReject(reject).identifier == 3)
    }

    @Test func unknownCodeAndShortLength() {
        #expect(throws: DecodeError(offset: 0, reason: .unknownCode(kind: "L2CAP signaling code", code: 0x0A))) {
            try L2CAPSignalingCommand(bytes: [0x0A, 0x01, 0x02, 0x00, 0x01, 0x00])
        }
        #expect(throws: DecodeError(offset: 4, reason: .truncated(needed: 2, available: 1))) {
            try L2CAPSignalingCommand(bytes: [0x13, 0x01, 0x01, 0x00, 0x00, 0x00])
        }
    }

    @Test func basicHeader() throws {
        let header = L2CAPBasicHeader(length: 5, channelID: 0x0004)
        #expect(header.encodedBytes == [0x05, 0x00, 0x04, 0x00])
        #expect(try L2CAPBasicHeader(bytes: [0x05, 0x00, 0x04, 0x00]) == header)
    }
}
