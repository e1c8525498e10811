import BLEHost
import Logging
import Synchronization

/// The device's end of a simulated link: applies a `SimulatorFault` to what the device sends and, with
/// `trace`, reports every write the device receives (`sim: write 0x0007 0000`) at notice level, so
/// that tests can see what reached the device (a `Z`, a CCCD turned off).
final class SimulatorProbe: ATTTransport {
    private let base: any ATTTransport
    private let fault: SimulatorFault?
    private let trace: Logger?
    /// Bytes of notifications sent so far.
    private let sent = Mutex(0)

    /// Wraps `base`; `trace` (nil: none) is where the received writes are reported.
    init(wrapping base: any ATTTransport, fault: SimulatorFault?, trace: Logger?) {
        self.base = base
        self.fault = fault
        self.trace = trace
    }

    var maximumPDULength: Int { base.maximumPDULength }

    func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        let notifications = sent.withLock { count in
            if pdu.first == 0x1B { count += pdu.count }
            return count
        }
        switch fault {
        case .mute? where pdu.first == 0x1B: return
        case .goesMute? where notifications >= 512 && pdu.first == 0x1B: return
        case .dropsLink? where notifications >= 2048:
            base.close()
            throw .closed
        case .silent?: return
        case .malformedMTU? where pdu.first == 0x03: try base.send(UnsafeRawBufferPointer(rebasing: pdu[0..<2]))
        default: try base.send(pdu)
        }
    }

    func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        guard let trace else { return try base.start(receive: receive, closed: closed) }
        try base.start(
            receive: { pdu in
                // Write Request (0x12) and Write Command (0x52): handle, then the value.
                if let opcode = pdu.first, opcode == 0x12 || opcode == 0x52, pdu.count >= 3 {
                    let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
                    let value = pdu[3...].map { Self.hex($0, width: 2) }.joined()
                    trace.notice("sim: write 0x\(Self.hex(handle, width: 4)) \(value)")
                }
                receive(pdu)
            },
            closed: closed
        )
    }

    func close() { base.close() }

    private static func hex(_ value: some BinaryInteger, width: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
