/// An `ATTTransport` that records every ATT PDU both ways into a `BTSnoopWriter`, wrapped as the ACL
/// packet that carries it (`BTSnoopWriter.recordATT`): the capture of the kernel path, where the
/// kernel keeps HCI, ACL and L2CAP to itself. `handle` is the link's HCI handle (0 if unknown).
public final class BTSnoopATTCapture: ATTTransport {
    public let inner: any ATTTransport
    public let writer: BTSnoopWriter
    public let handle: UInt16

    public init(wrapping inner: any ATTTransport, writer: BTSnoopWriter, handle: UInt16) {
        self.inner = inner
        self.writer = writer
        self.handle = handle
    }

    public var maximumPDULength: Int { inner.maximumPDULength }

    public func send(_ pdu: UnsafeRawBufferPointer) throws(TransportError) {
        writer.recordATT(pdu, handle: handle, received: false)
        try inner.send(pdu)
    }

    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let writer = writer
        let handle = handle
        try inner.start(
            receive: { pdu in
                writer.recordATT(pdu, handle: handle, received: true)
                receive(pdu)
            },
            closed: { reason in
                writer.flush()
                closed(reason)
            }
        )
    }

    public func close() {
        inner.close()
        writer.flush()
    }
}
