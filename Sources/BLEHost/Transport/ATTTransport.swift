/// A bearer for ATT PDUs: one whole PDU per send and per delivery, as the kernel's L2CAP LE socket on
/// CID 4 gives them (`SOCK_SEQPACKET`), as `HCIHost` gives them after L2CAP reassembly, and as the
/// in-memory socketpair of `BLETesting` gives them.
///
/// Delivery is push-style and synchronous: the transport's reader thread calls `receive` once per PDU,
/// in arrival order, with a buffer that is valid only during the call. This is the start of the hot
/// path; nothing on it may block for long or allocate per PDU.
public protocol ATTTransport: AnyObject, Sendable {
    /// The largest ATT PDU this transport carries (its L2CAP MTU). ATT_MTU is negotiated within it.
    var maximumPDULength: Int { get }

    /// Whether the connection may have carried another ATT client before this one (the kernel's ATT
    /// channel, which may be opened on a link bluetoothd connected and left to its idle timeout): the
    /// peer then answers at the ATT_MTU that client agreed, which this side cannot know, so PDUs up to
    /// `ATTBearer.maximumMTU` are accepted from it. False by default.
    var sharesLink: Bool { get }

    /// Sends one ATT PDU. Safe to call from any thread, including from inside `receive`.
    func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError)

    /// Starts delivery. `receive` is called on the reader thread for every PDU, in order; `closed` is
    /// called exactly once, after the last `receive`, with the reason delivery stopped.
    func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError)

    /// Closes the link. Idempotent; `closed` is called with `.closed` if delivery had not ended already.
    func close()
}

extension ATTTransport {
    /// A transport is its connection's first and only ATT client unless it says otherwise.
    public var sharesLink: Bool { false }

    /// Sends one ATT PDU held in an array.
    public func send(_ pdu: [UInt8]) throws(TransportError) {
        let result: Result<Void, TransportError> = pdu.withUnsafeBytes { bytes in
            do throws(TransportError) {
                try send(bytes)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }
}
