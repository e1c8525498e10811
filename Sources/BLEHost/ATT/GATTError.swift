public import BLEWire

/// Why an ATT request, a GATT procedure or a subscription failed.
public enum GATTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer answered with an ATT Error Response.
    case att(ATTError)
    /// No response came within the 30 s transaction timeout to the request with this opcode. The bearer
    /// is closed (Core 5.4 Vol 3 Part F §3.3.3): this and every later operation on it fail.
    case transactionTimeout(request: UInt8)
    /// The bearer is closed: the link went away (`.disconnected`) or was closed here (`.closed`).
    case disconnected(TransportError)
    /// The transport refused to send.
    case send(TransportError)
    /// The peer's response could not be decoded.
    case invalidResponse(request: UInt8, DecodeError)
    /// The peer's response was well-formed but does not make sense for the request.
    case unexpectedResponse(request: UInt8, String)
    /// The caller asked for something that cannot be sent (too long, out of range, wrong state).
    case invalidArgument(String)
    /// The attribute the operation needs was not found on the peer.
    case notFound(String)
    /// A Service Changed indication covered these handles: what was discovered there is stale.
    case serviceChanged(start: UInt16, end: UInt16)
    /// `start()` has not been called on the bearer yet.
    case notStarted
    /// The waiting task was cancelled. A request already on the air keeps the bearer's transaction
    /// slot until its response (discarded) or the transaction timeout, so it cannot answer a later one.
    case cancelled

    /// A one-line account for logs, naming the request by its spec name where known.
    public var description: String {
        switch self {
        case .att(let error): error.description
        case .transactionTimeout(let request): "no response to \(Self.named(request)) within 30 s; bearer closed"
        case .disconnected(let reason): "ATT bearer closed: \(reason)"
        case .send(let reason): "ATT send failed: \(reason)"
        case .invalidResponse(let request, let error): "invalid response to \(Self.named(request)): \(error)"
        case .unexpectedResponse(let request, let what): "unexpected response to \(Self.named(request)): \(what)"
        case .invalidArgument(let what): "invalid argument: \(what)"
        case .notFound(let what): "not found: \(what)"
        case .serviceChanged(let start, let end): "service changed in handles 0x\(hex(start))–0x\(hex(end))"
        case .notStarted: "ATT bearer not started"
        case .cancelled: "cancelled"
        }
    }

    /// `ATT_READ_BY_GROUP_TYPE_REQ (0x10)`, or `ATT request 0xNN` for an opcode the table does not have.
    static func named(_ request: UInt8) -> String {
        let code = (request < 0x10 ? "0x0" : "0x") + hex(request)
        return ATTOpcode(rawValue: request).map { "\($0.specName) (\(code))" } ?? "ATT request \(code)"
    }
}
