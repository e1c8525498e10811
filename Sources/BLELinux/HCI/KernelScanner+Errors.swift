import BLEHost
import BLEWire

extension KernelScanner {
    /// A command that got no answer, as the one-line explanation and kind the command line maps.
    static func failure(_ error: HCICommandError, adapter: String, purpose: String) -> BLELinuxError {
        switch error {
        case .timedOut(let opcode):
            BLELinuxError(
                .timedOut,
                "\(adapter) did not answer in time when asked to \(purpose) (HCI command \(HCICommandError.hex(opcode)))"
            )
        case .cancelled:
            BLELinuxError(.cancelled, "\(adapter): cancelled while asking to \(purpose)")
        case .alreadyPending(let opcode):
            BLELinuxError(
                .busy,
                "\(adapter): HCI command \(HCICommandError.hex(opcode)) is already waiting for its answer on this socket"
            )
        case .parametersTooLong:
            BLELinuxError(.system, "\(adapter): cannot \(purpose): \(error)")
        case .transport(.disconnected):
            BLELinuxError(.noAdapter, "adapter \(adapter) went away while asked to \(purpose)")
        case .transport(let reason):
            BLELinuxError(.system, "\(adapter): cannot \(purpose): \(reason)")
        }
    }

    /// A command the controller refused. Command Disallowed on a scan command means a scan is already
    /// running: the kernel's own (bluetoothd's discovery, a pending connection) or another program's.
    static func refusal(adapter: String, purpose: String, opcode: UInt16, status: UInt8) -> BLELinuxError {
        let code = HCIStatus(rawValue: status)
        if code == .commandDisallowed {
            return BLELinuxError(
                .busy,
                "\(adapter) refused to \(purpose) (\(code)): a scan is already running, from bluetoothd (discovery, or a pending connection) or another program; stop it (bluetoothctl scan off) and try again"
            )
        }
        return BLELinuxError(
            .system,
            "\(adapter) refused to \(purpose) (HCI command \(HCICommandError.hex(opcode)): \(code))"
        )
    }
}
