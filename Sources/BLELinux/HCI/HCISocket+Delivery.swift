import BLEHost

extension HCISocket {
    /// Runs on the reader thread for every packet the socket gives (an indicator byte, then the packet).
    func deliver(_ bytes: UnsafeRawBufferPointer) -> TransportError? {
        // The raw channel delivers whole events: indicator, code, length, parameters. Anything else
        // (another packet type, a length that disagrees) is not for us and is skipped.
        guard bytes.count >= 3, bytes[0] == HCIPacketIndicatorByte.event, Int(bytes[2]) == bytes.count - 3 else {
            return nil
        }
        let code = bytes[1]
        let parameters = UnsafeRawBufferPointer(rebasing: bytes[3...])
        switch code {
        case HCIEventPacket.Code.commandComplete where parameters.count >= 3:
            let opcode = UInt16(parameters[1]) | UInt16(parameters[2]) << 8
            if answer(opcode: opcode, with: .complete(returnParameters: Array(parameters[3...]))) { return nil }
        case HCIEventPacket.Code.commandStatus where parameters.count >= 4:
            let opcode = UInt16(parameters[2]) | UInt16(parameters[3]) << 8
            if answer(opcode: opcode, with: .status(parameters[0])) { return nil }
        default:
            break
        }
        publish(HCIEventPacket(code: code, parameters: Array(parameters)))
        return nil
    }
}
