/// Why a transport could not send, or why it stopped delivering.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The transport was closed by this side.
    case closed
    /// The link went away. `reason` is the HCI disconnect reason where the transport knows it.
    case disconnected(reason: UInt8?)
    /// A system call failed; `errno` is the C error number.
    case system(syscall: String, errno: Int32)
    /// The PDU does not fit the transport (`limit` is the largest it carries).
    case pduTooLarge(length: Int, limit: Int)
    /// The peer sent something the transport cannot frame.
    case framing(String)

    /// A one-line account for logs; a disconnect reason is shown in hex.
    public var description: String {
        switch self {
        case .closed: "transport closed"
        case .disconnected(let reason?): "disconnected (reason 0x\(String(reason, radix: 16)))"
        case .disconnected(nil): "disconnected"
        case .system(let syscall, let errno): "\(syscall) failed (errno \(errno))"
        case .pduTooLarge(let length, let limit): "PDU of \(length) bytes exceeds the transport limit of \(limit)"
        case .framing(let what): "framing error: \(what)"
        }
    }
}
