import ArgumentParser
import BLEHost
import Synchronization

/// A fault the built-in simulators can be given (the hidden `--sim-fault` option), so that the command
/// line's handling of misbehaving devices can be exercised without a radio.
enum SimulatorFault: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// The peripheral answers nothing at all, not even the Exchange MTU request.
    case silent
    /// The Exchange MTU Response is cut to two bytes.
    case malformedMTU = "malformed-mtu"
    /// The Pico answers `Z` but goes on measuring until its script ends by itself.
    case ignoresAbort = "ignores-abort"
    /// The peripheral answers ATT requests but sends no notification: a Pico that never replies.
    case mute
    /// The link goes down once the peripheral has notified 2 KiB (mid-run for a Pico script).
    case dropsLink = "drops-link"
}

/// The device's end of a simulated link, applying a `SimulatorFault` to what the device sends and, with
/// `trace`, printing every write the device receives to standard error (`sim: write 0x0007 0000`), so
/// that tests can see what reached the device (a `Z`, a CCCD turned off).
final class SimulatorProbe: ATTTransport {
    private let base: any ATTTransport
    private let fault: SimulatorFault?
    private let trace: Bool
    /// Bytes of notifications sent so far.
    private let sent = Mutex(0)

    init(wrapping base: any ATTTransport, fault: SimulatorFault?, trace: Bool) {
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
        guard trace else { return try base.start(receive: receive, closed: closed) }
        try base.start(
            receive: { pdu in
                // Write Request (0x12) and Write Command (0x52): handle, then the value.
                if let opcode = pdu.first, opcode == 0x12 || opcode == 0x52, pdu.count >= 3 {
                    let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
                    let value = pdu[3...].map {
                        String($0, radix: 16).count == 1 ? "0\(String($0, radix: 16))" : String($0, radix: 16)
                    }
                    StandardError.report("sim: write 0x\(String(handle, radix: 16).leftPadded(4)) \(value.joined())")
                }
                receive(pdu)
            },
            closed: closed
        )
    }

    func close() { base.close() }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
