import BLEWire
import Synchronization

/// The GATT server of one connection: answers the client's requests from a shared `GATTDatabase`
/// with the ATT errors Core 5.4 Vol 3 Part F §3.4 requires, keeps this connection's CCCD values and
/// prepared writes, and sends notifications and indications to the client when it asked for them.
public final class GATTServer: Sendable {
    /// The attributes served, shared with the other connections' servers.
    public let database: GATTDatabase
    /// The bearer the server answers on. It holds the server, as its request handler, until it closes.
    public let bearer: ATTBearer
    let state = Mutex(State())

    /// Most prepared writes queued at once before Prepare Queue Full.
    static let prepareQueueLimit = 128

    struct State {
        /// CCCD bits per characteristic value handle.
        var cccd = CCCDTable()
        var prepared: [(handle: UInt16, offset: Int, value: [UInt8])] = []
    }

    /// Serves `database` on `bearer` (install before `bearer.start()`). The bearer holds the server
    /// until it closes.
    public init(database: GATTDatabase, bearer: ATTBearer) {
        self.database = database
        self.bearer = bearer
        // The bearer keeps the server alive until it closes (it drops its handlers then).
        bearer.setRequestHandler { [self] pdu, mtu, response in
            handle(pdu, mtu: mtu, response: &response)
        }
    }

    /// Whether the client enabled `kind` for the characteristic whose value is at `valueHandle`.
    public func isSubscribed(_ valueHandle: UInt16, _ kind: GATTSubscriptionKind) -> Bool {
        state.withLock { $0.cccd[valueHandle] & kind.cccdBits != 0 }
    }

    /// Sends a notification of `value` if the client enabled notifications for `valueHandle`; returns
    /// whether it was sent. No allocation.
    @discardableResult
    public func notify(_ valueHandle: UInt16, value: UnsafeRawBufferPointer) throws(GATTError) -> Bool {
        guard isSubscribed(valueHandle, .notifications) else { return false }
        try bearer.notify(handle: valueHandle, value: value)
        return true
    }

    /// Sends a notification of a value held in an array, if the client enabled notifications.
    @discardableResult
    public func notify(_ valueHandle: UInt16, value: [UInt8]) throws(GATTError) -> Bool {
        guard isSubscribed(valueHandle, .notifications) else { return false }
        try bearer.notify(handle: valueHandle, value: value)
        return true
    }

    /// Sends an indication and waits for its confirmation, if the client enabled indications.
    @discardableResult
    public func indicate(_ valueHandle: UInt16, value: [UInt8]) async throws(GATTError) -> Bool {
        guard isSubscribed(valueHandle, .indications) else { return false }
        try await bearer.indicate(handle: valueHandle, value: value)
        return true
    }

    /// Dispatches one request or command (reader thread). Malformed known requests get Invalid PDU,
    /// unknown requests Request Not Supported; commands never get a response.
    func handle(_ pdu: UnsafeRawBufferPointer, mtu: Int, response: inout ByteWriter) {
        let opcode = pdu[0]
        do throws(ServerFailure) {
            switch opcode {
            case ATTFindInformationRequest.opcode: try findInformation(pdu, mtu: mtu, into: &response)
            case ATTFindByTypeValueRequest.opcode: try findByTypeValue(pdu, mtu: mtu, into: &response)
            case ATTReadByTypeRequest.opcode: try readByType(pdu, mtu: mtu, into: &response)
            case ATTReadByGroupTypeRequest.opcode: try readByGroupType(pdu, mtu: mtu, into: &response)
            case ATTReadRequest.opcode: try read(pdu, mtu: mtu, into: &response)
            case ATTReadBlobRequest.opcode: try readBlob(pdu, mtu: mtu, into: &response)
            case ATTReadMultipleRequest.opcode: try readMultiple(pdu, mtu: mtu, into: &response)
            case ATTReadMultipleVariableRequest.opcode: try readMultipleVariable(pdu, mtu: mtu, into: &response)
            case ATTWriteRequest.opcode: try writeRequest(pdu, into: &response)
            case ATTWriteCommand.opcode: writeCommand(pdu)
            case ATTPrepareWriteRequest.opcode: try prepareWrite(pdu, into: &response)
            case ATTExecuteWriteRequest.opcode: try executeWrite(pdu, into: &response)
            default:
                if opcode & 0x40 == 0 { throw ServerFailure(.requestNotSupported, handle: 0) }
            }
        } catch {
            response.reset()
            ATTErrorResponse(requestOpcode: opcode, handle: error.handle, error: error.code).encode(into: &response)
        }
    }
}

/// A request the server refuses: the error code and the handle to report.
struct ServerFailure: Error {
    let code: ATTErrorCode
    let handle: UInt16

    init(_ code: ATTErrorCode, handle: UInt16) {
        self.code = code
        self.handle = handle
    }

    static let invalidPDU = ServerFailure(.invalidPDU, handle: 0)
}

/// Decodes a request PDU, turning a decode failure into Invalid PDU.
func decodeRequest<Request: WireCodable>(
    _ type: Request.Type,
    _ pdu: UnsafeRawBufferPointer
) throws(ServerFailure) -> Request {
    do { return try Request(bytes: pdu) } catch { throw .invalidPDU }
}
