/// A fault that a `SocketPairATTTransport` applies to one PDU it sends.
public enum ATTFault: Sendable, Equatable {
    /// The PDU is not sent.
    case drop
    /// The sending thread waits this long first (later PDUs keep their order behind it).
    case delay(Duration)
    /// The byte at `offset` is XORed with `mask` (ignored if the PDU is shorter).
    case corrupt(offset: Int, mask: UInt8)
    /// Only the first `length` bytes are sent.
    case truncate(length: Int)
    /// The link is shut down instead of sending: both ends see a disconnect.
    case disconnect
}

/// Chooses the fault, if any, for each PDU a transport end sends: `index` counts this end's PDUs from 0,
/// including dropped ones; `pdu` is the PDU as the caller gave it.
public typealias ATTFaultRule = @Sendable (_ index: Int, _ pdu: UnsafeRawBufferPointer) -> ATTFault?

extension ATTFault {
    /// A rule that sends the first `count` PDUs and disconnects at the next one.
    public static func disconnect(afterSending count: Int) -> ATTFaultRule {
        { index, _ in index >= count ? .disconnect : nil }
    }

    /// A rule that applies `fault` to every PDU whose opcode (first byte) is `opcode`.
    public static func on(opcode: UInt8, _ fault: ATTFault) -> ATTFaultRule {
        { _, pdu in pdu.first == opcode ? fault : nil }
    }
}
