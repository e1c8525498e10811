import BLEWire
import Testing

@Suite struct ATTPDUTests {
    /// ATT PDUs seen in the Bumble central's trace against the PicoSim peer, and spec layouts.
    static let vectors: [(pdu: ATTPDU, bytes: [UInt8])] = [
        (.exchangeMTURequest(.init(clientRxMTU: 247)), [0x02, 0xF7, 0x00]),
        (.exchangeMTUResponse(.init(serverRxMTU: 517)), [0x03, 0x05, 0x02]),
        (
            .readByGroupTypeRequest(
                .init(startingHandle: 1, endingHandle: 0xFFFF, attributeGroupType: .primaryService)
            ),
            [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]
        ),
        (
            .errorResponse(.init(requestOpcode: 0x10, handle: 0x0001, error: .attributeNotFound)),
            [0x01, 0x10, 0x01, 0x00, 0x0A]
        ),
        (.writeRequest(.init(handle: 0x0013, value: [0x01, 0x00])), [0x12, 0x13, 0x00, 0x01, 0x00]),
        (.writeResponse(.init()), [0x13]),
        (.writeCommand(.init(handle: 0x0010, value: Array("t\n".utf8))), [0x52, 0x10, 0x00, 0x74, 0x0A]),
        (.handleValueNotification(.init(handle: 0x0012, value: [0x50, 0x0A])), [0x1B, 0x12, 0x00, 0x50, 0x0A]),
        (.handleValueConfirmation(.init()), [0x1E]),
        (.executeWriteRequest(.init(flags: 0x01)), [0x18, 0x01]),
        (
            .readByTypeRequest(.init(startingHandle: 0x0010, endingHandle: 0x0020, attributeType: .lairdVSPTx)),
            [0x08, 0x10, 0x00, 0x20, 0x00]
                + [0x7C, 0x16, 0xA5, 0x5E, 0xBA, 0x11, 0xCB, 0x92, 0x0C, 0x49, 0x7F, 0xB8, 0x00, 0x20, 0x9A, 0x56]
        ),
        (
            .findInformationResponse(.init(information: .init(pairs: [.init(handle: 0x0012, uuid: .lairdVSPTx)]))),
            [0x05, 0x02, 0x12, 0x00]
                + [0x7C, 0x16, 0xA5, 0x5E, 0xBA, 0x11, 0xCB, 0x92, 0x0C, 0x49, 0x7F, 0xB8, 0x00, 0x20, 0x9A, 0x56]
        ),
        (
            .signedWriteCommand(.init(handle: 0x0010, value: [0xAA], signature: Array(1...12))),
            [0xD2, 0x10, 0x00, 0xAA] + Array(1...12)
        ),
        (
            .readMultipleVariableResponse(
                .init(values: .init(tuples: [.init(declaredLength: 4, value: [0x01, 0x02])]))
            ),
            [0x21, 0x04, 0x00, 0x01, 0x02]
        ),
    ]

    @Test(arguments: 0..<vectors.count)
    func matchesTheSpecLayout(_ index: Int) throws {
        let (pdu, bytes) = Self.vectors[index]
        #expect(pdu.encodedBytes == bytes)
        #expect(try ATTPDU(bytes: bytes) == pdu)
    }

    @Test func unknownOpcodeIsATypedLocatedError() {
        #expect(throws: DecodeError(offset: 0, reason: .unknownCode(kind: "ATT opcode", code: 0x7F))) {
            try ATTPDU(bytes: [0x7F, 0x00])
        }
        #expect(throws: DecodeError(offset: 0, reason: .truncated(needed: 1, available: 0))) {
            try ATTPDU(bytes: [])
        }
    }

    @Test func malformedListsAreLocated() {
        // Find Information Response with format 3.
        #expect(throws: DecodeError(offset: 1, reason: .invalidValue(field: "format", value: 3))) {
            try ATTPDU(bytes: [0x05, 0x03, 0x01, 0x00, 0x00, 0x28])
        }
        // Read By Type Response whose second entry is one byte short.
        #expect(throws: DecodeError(offset: 7, reason: .truncated(needed: 1, available: 0))) {
            try ATTPDU(bytes: [0x09, 0x03, 0x01, 0x00, 0xAA, 0x02, 0x00])
        }
        // Read By Type Request with a 4-octet UUID (ATT allows 2 or 16).
        #expect(throws: DecodeError(offset: 5, reason: .invalidValue(field: "UUID length", value: 4))) {
            try ATTPDU(bytes: [0x08, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28, 0x00, 0x00])
        }
        // A Read Request with a trailing byte.
        #expect(throws: DecodeError(offset: 3, reason: .trailingBytes(count: 1))) {
            try ATTPDU(bytes: [0x0A, 0x01, 0x00, 0x00])
        }
    }

    /// Decodes through the borrowed view; returns the handle, the value and where the value starts.
    static func viaView(_ pdu: [UInt8]) throws(DecodeError) -> (handle: UInt16, value: [UInt8], offset: Int) {
        let result: Result<(UInt16, [UInt8], Int), DecodeError> = pdu.withUnsafeBytes { buffer in
            do throws(DecodeError) {
                let view = try ATTHandleValueNotification.View(pdu: buffer)
                let offset = view.value.baseAddress.map { $0 - buffer.baseAddress! } ?? -1
                #expect(view.owned == ATTHandleValueNotification(handle: view.handle, value: Array(view.value)))
                return .success((view.handle, Array(view.value), offset))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    @Test func notificationViewBorrowsTheValue() throws {
        let decoded = try Self.viaView([0x1B, 0x12, 0x00, 0x31, 0x32, 0x33])
        #expect(decoded.handle == 0x0012)
        #expect(decoded.value == [0x31, 0x32, 0x33])
        #expect(decoded.offset == 3)
        #expect(try Self.viaView([0x1B, 0x12, 0x00]).value.isEmpty)
        #expect(throws: DecodeError(offset: 0, reason: .invalidValue(field: "opcode", value: 0x1D))) {
            try Self.viaView([0x1D, 0x12, 0x00])
        }
        #expect(throws: DecodeError(offset: 0, reason: .truncated(needed: 3, available: 2))) {
            try Self.viaView([0x1B, 0x12])
        }
    }

    @Test func opcodesKnowTheirRoles() {
        #expect(ATTOpcode.exchangeMTURequest.answer == .exchangeMTUResponse)
        #expect(ATTOpcode.handleValueIndication.answer == .handleValueConfirmation)
        #expect(ATTOpcode.writeCommand.kind == .command)
        #expect(ATTOpcode.allCases.filter { $0.kind == .request }.allSatisfy { $0.answer != nil })
        // Bit 6 of the opcode is the Command Flag (Vol 3 Part F §3.3.1).
        #expect(ATTOpcode.allCases.filter { $0.rawValue & 0x40 != 0 }.allSatisfy { $0.kind == .command })
        #expect(ATTErrorCode.attributeNotFound.description == "Attribute Not Found (0x0A)")
        #expect(ATTErrorCode(rawValue: 0x80).description == "Application Error (0x80)")
    }
}
