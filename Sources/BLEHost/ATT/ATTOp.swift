/// ATT opcodes the engines dispatch on (Core 5.4 Vol 3 Part F §3.4.8, Table 3.37).
enum ATTOp {
    static let errorResponse: UInt8 = 0x01
    static let exchangeMTURequest: UInt8 = 0x02
    static let exchangeMTUResponse: UInt8 = 0x03
    static let findInformationRequest: UInt8 = 0x04
    static let findInformationResponse: UInt8 = 0x05
    static let findByTypeValueRequest: UInt8 = 0x06
    static let findByTypeValueResponse: UInt8 = 0x07
    static let readByTypeRequest: UInt8 = 0x08
    static let readByTypeResponse: UInt8 = 0x09
    static let readRequest: UInt8 = 0x0A
    static let readResponse: UInt8 = 0x0B
    static let readBlobRequest: UInt8 = 0x0C
    static let readBlobResponse: UInt8 = 0x0D
    static let readMultipleRequest: UInt8 = 0x0E
    static let readMultipleResponse: UInt8 = 0x0F
    static let readByGroupTypeRequest: UInt8 = 0x10
    static let readByGroupTypeResponse: UInt8 = 0x11
    static let writeRequest: UInt8 = 0x12
    static let writeResponse: UInt8 = 0x13
    static let prepareWriteRequest: UInt8 = 0x16
    static let prepareWriteResponse: UInt8 = 0x17
    static let executeWriteRequest: UInt8 = 0x18
    static let executeWriteResponse: UInt8 = 0x19
    static let handleValueNotification: UInt8 = 0x1B
    static let handleValueIndication: UInt8 = 0x1D
    static let handleValueConfirmation: UInt8 = 0x1E
    static let readMultipleVariableRequest: UInt8 = 0x20
    static let readMultipleVariableResponse: UInt8 = 0x21
    static let multipleHandleValueNotification: UInt8 = 0x23
    static let writeCommand: UInt8 = 0x52
    static let signedWriteCommand: UInt8 = 0xD2

    /// Bit 6 of an opcode: a command, which gets no response and is ignored when not understood.
    static let commandFlag: UInt8 = 0x40

    /// Whether `opcode` is a response (or Error Response) that completes a request.
    static func isResponse(_ opcode: UInt8) -> Bool {
        switch opcode {
        case 0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: true
        default: false
        }
    }
}
