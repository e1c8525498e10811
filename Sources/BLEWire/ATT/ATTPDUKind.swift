/// The six ATT PDU methods' roles (Core 5.4 Vol 3 Part F §3.3 and §3.4.9): what a bearer does with one.
public enum ATTPDUKind: Sendable, Hashable, CaseIterable {
    /// Client to server; exactly one in flight; answered by a response or ATT_ERROR_RSP.
    case request
    /// Server to client, answering the pending request.
    case response
    /// Client to server, never answered (Write Command, Signed Write Command).
    case command
    /// Server to client, never answered.
    case notification
    /// Server to client; the client answers with ATT_HANDLE_VALUE_CFM.
    case indication
    /// Client to server, answering an indication.
    case confirmation
}
