import BLEHost
import BLEWire

/// Splits what one read of an HCI socket gives (an indicator byte, then one packet) for an
/// `HCITransport` receiver.
enum IndicatedPacket {
    static func deliver(
        _ bytes: UnsafeRawBufferPointer,
        to receive: (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void
    ) -> TransportError? {
        guard let first = bytes.first else { return nil }
        guard let type = HCIPacketIndicator(rawValue: first) else {
            let hex = (first < 0x10 ? "0" : "") + String(first, radix: 16)
            return .framing("HCI socket packet with unknown indicator 0x\(hex)")
        }
        receive(type, UnsafeRawBufferPointer(rebasing: bytes[1...]))
        return nil
    }
}
