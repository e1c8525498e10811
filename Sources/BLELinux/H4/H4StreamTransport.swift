public import BLEHost
public import BLEWire

/// H4 over a byte stream: a UART to a controller, or TCP to an emulated one. Each packet goes out as its
/// indicator and bytes in one write; what comes in is split by `H4Framer`, so a packet may arrive in
/// any number of reads. A framing error ends the transport with `.framing`, locating the bad byte.
public final class H4StreamTransport: HCITransport {
    /// What the transport is connected to (`serial:/dev/ttyACM0@1000000`, `tcp:host:port`).
    public let endpoint: String
    private let channel: DescriptorChannel
    private let framer: FramerBox

    /// The framer's state, touched only by the reader thread.
    private final class FramerBox: @unchecked Sendable {
        var framer = H4Framer()
    }

    init(endpoint: String, channel: DescriptorChannel) {
        self.endpoint = endpoint
        self.channel = channel
        framer = FramerBox()
    }

    /// Writes one packet, its indicator byte first, in one write. Safe from any thread: what the stream cannot
    /// take at once is queued, and a sender other than the reader thread waits (up to 10 s) while the queue
    /// is full. Throws `.closed` once the transport is closed.
    public func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        try channel.send(prefix: type.rawValue, packet)
    }

    /// Starts the reader thread: `H4Framer` splits the stream into packets and `receive` gets each, in order
    /// on that thread; `closed` runs once, after the last, with `.framing` when the stream held an unknown
    /// indicator or announced a packet too long. Throws `.closed` when delivery has started already or the
    /// transport is closed.
    public func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let box = framer
        try channel.start(
            deliver: { bytes in
                do throws(H4FramingError) {
                    try box.framer.push(bytes, deliver: receive)
                    return nil
                } catch {
                    return .framing(error.description)
                }
            },
            closed: closed
        )
    }

    /// Closes the UART or the TCP connection. Once delivery has started it also waits, unless called on the
    /// reader thread, until `closed` has run. Idempotent.
    public func close() { channel.close() }

    deinit { channel.close() }
}
