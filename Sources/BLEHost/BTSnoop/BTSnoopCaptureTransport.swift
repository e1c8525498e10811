public import BLEWire

/// An `HCITransport` that records every packet both ways into a `BTSnoopWriter` and passes it on
/// unchanged: wrap the real transport with it to get a capture of what `HCIHost` and the controller said.
public final class BTSnoopCaptureTransport: HCITransport {
    public let inner: any HCITransport
    public let writer: BTSnoopWriter

    public init(wrapping inner: any HCITransport, writer: BTSnoopWriter) {
        self.inner = inner
        self.writer = writer
    }

    public func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        writer.record(type, packet, received: false)
        try inner.send(type, packet)
    }

    public func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let writer = writer
        try inner.start(
            receive: { type, packet in
                writer.record(type, packet, received: true)
                receive(type, packet)
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
