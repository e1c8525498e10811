public import BLEHost

/// Why a command got no answer.
public enum HCICommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Command Complete or Command Status arrived within the timeout.
    case timedOut(opcode: UInt16)
    /// A command with the same opcode is still waiting for its answer.
    case alreadyPending(opcode: UInt16)
    /// More than 255 parameter bytes.
    case parametersTooLong(count: Int)
    /// The task waiting for the answer was cancelled.
    case cancelled(opcode: UInt16)
    /// The socket failed or closed.
    case transport(TransportError)

    /// One line naming the opcode as `0xHHHH` (or the parameter count, or the socket's failure).
    public var description: String {
        switch self {
        case .timedOut(let opcode): "HCI command \(Self.hex(opcode)) got no answer in time"
        case .alreadyPending(let opcode): "HCI command \(Self.hex(opcode)) is already waiting for its answer"
        case .parametersTooLong(let count): "HCI command parameters of \(count) bytes exceed 255"
        case .cancelled(let opcode): "HCI command \(Self.hex(opcode)) cancelled"
        case .transport(let reason): "HCI socket: \(reason)"
        }
    }

    static func hex(_ opcode: UInt16) -> String {
        let digits = String(opcode, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }
}
