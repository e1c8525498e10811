/// An `ATTTransport` that records every ATT PDU both ways into an `HCIPacketCapture` (a btsnoop file),
/// wrapped as the ACL packet that carries it (`HCIPacketCapture.recordATT`): the capture of the kernel
/// path, where the kernel keeps HCI, ACL and L2CAP to itself. `handle` is the link's HCI handle (0 if unknown).
public final class BTSnoopATTCapture: ATTTransport {
    /// The transport being recorded; every call is passed on to it.
    public let inner: any ATTTransport
    /// Where the PDUs are recorded; flushed when the link closes, but never closed here.
    public let capture: any HCIPacketCapture
    /// The HCI connection handle written into each recorded ACL header (0 if unknown).
    public let handle: UInt16

    /// Wraps `inner`, recording its traffic into `capture` as ACL packets on `handle`.
    public init(wrapping inner: any ATTTransport, into capture: any HCIPacketCapture, handle: UInt16) {
        self.inner = inner
        self.capture = capture
        self.handle = handle
    }

    /// The wrapped transport's limit.
    public var maximumPDULength: Int { inner.maximumPDULength }

    /// Records `pdu` as sent (host → controller), then sends it through the wrapped transport. The PDU is
    /// recorded even when the send then fails.
    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        // Recorded before it goes out: the answer, recorded on the reader thread, can then never come
        // first in the capture. A send that fails is still in it, as the host's attempt.
        capture.recordATT(pdu, handle: handle, received: false)
        try inner.send(pdu)
    }

    /// Starts the wrapped transport, recording each received PDU before `receive` sees it and flushing
    /// the writer before `closed` is called.
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let capture = capture
        let handle = handle
        try inner.start(
            receive: { pdu in
                capture.recordATT(pdu, handle: handle, received: true)
                receive(pdu)
            },
            closed: { reason in
                capture.flush()
                closed(reason)
            }
        )
    }

    /// Closes the wrapped transport and flushes the capture.
    public func close() {
        inner.close()
        capture.flush()
    }
}
