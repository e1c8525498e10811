public import BLEWire

/// Why an `HCIHost` operation failed. Every wait is bounded: a controller that does not answer gives
/// `commandTimeout`, a peer that does not connect gives `connectTimeout`.
public enum HCIHostError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Command Complete or Command Status for `opcode` within the command timeout.
    case commandTimeout(opcode: UInt16)
    /// The controller answered `opcode` with a non-success status.
    case commandFailed(opcode: UInt16, status: HCIStatus)
    /// The controller's answer to `opcode` could not be decoded.
    case invalidResponse(opcode: UInt16, DecodeError)
    /// The controller lacks something the host needs (named).
    case unsupported(String)
    /// LE Create Connection did not complete within the timeout; it was cancelled.
    case connectTimeout(BluetoothAddress)
    /// The connection attempt ended with this status (Connection Complete with an error).
    case connectFailed(BluetoothAddress, status: HCIStatus)
    /// No advertisement matched within the scan timeout.
    case scanTimeout
    /// The host is not initialised, was shut down, or the transport closed.
    case notRunning(TransportError?)
    /// The connection is gone; `reason` is the HCI disconnect reason.
    case disconnected(reason: UInt8)
    /// The transport refused a packet.
    case transport(TransportError)
    /// The operation was cancelled by the caller's task.
    case cancelled

    /// A one-line account for logs; opcodes in four hex digits, statuses by name.
    public var description: String {
        switch self {
        case .commandTimeout(let opcode): "no answer to HCI command 0x\(hex4(opcode)) in time"
        case .commandFailed(let opcode, let status): "HCI command 0x\(hex4(opcode)) failed: \(status)"
        case .invalidResponse(let opcode, let error): "undecodable answer to HCI command 0x\(hex4(opcode)): \(error)"
        case .unsupported(let what): "controller does not support \(what)"
        case .connectTimeout(let address): "connecting to \(address) timed out (cancelled)"
        case .connectFailed(let address, let status): "connecting to \(address) failed: \(status)"
        case .scanTimeout: "no matching advertisement before the scan timeout"
        case .notRunning(let reason?): "HCI host not running: \(reason)"
        case .notRunning(nil): "HCI host not running"
        case .disconnected(let reason): "disconnected: \(HCIStatus(rawValue: reason))"
        case .transport(let error): "HCI transport: \(error)"
        case .cancelled: "cancelled"
        }
    }
}

func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
