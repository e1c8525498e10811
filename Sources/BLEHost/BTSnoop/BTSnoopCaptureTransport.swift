public import BLEWire

/// An `HCITransport` that records every packet both ways into an `HCIPacketCapture` (a btsnoop file)
/// and passes it on unchanged: wrap the real transport with it to get a capture of what `HCIHost` and
/// the controller said.
public final class BTSnoopCaptureTransport: HCITransport {
    /// The transport being recorded; every call is passed on to it.
    public let inner: any HCITransport
    /// Where the packets are recorded; flushed when the transport closes, but never closed here.
    public let capture: any HCIPacketCapture

    /// Wraps `inner`, recording its packets into `capture`.
    public init(wrapping inner: any HCITransport, into capture: any HCIPacketCapture) {
        self.inner = inner
        self.capture = capture
    }

    /// Records the packet as sent (host → controller), then sends it through the wrapped transport. The
    /// packet is recorded even when the send then fails.
    public func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        // Recorded before it goes out: the answer, recorded on the reader thread, can then never come
        // first in the capture. A send that fails is still in it, as the host's attempt.
        capture.record(type, packet, received: false)
        try inner.send(type, packet)
    }

    /// Starts the wrapped transport, recording each received packet before `receive` sees it and flushing
    /// the writer before `closed` is called.
    public func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let capture = capture
        try inner.start(
            receive: { type, packet in
                capture.record(type, packet, received: true)
                receive(type, packet)
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
