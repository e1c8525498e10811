public import BLEHost
public import BLEWire

/// H4 over a byte stream: a UART to a controller, or TCP to an emulated one. Each packet goes out as its
/// indicator and bytes in one write; what comes in is split by `H4Framer`, so a packet may arrive in
/// any number of reads. A framing error ends the transport with `.framing`, locating the bad byte.
public final class H4StreamTransport: HCITransport {
    /// What the transport is connected to (`serial:/dev/ttyACM0@1000000`, `tcp:host:port`).
    public let endpoint: String
    private let link: PacketLink
    private let framer: FramerBox

    /// The framer's state, touched only by the reader thread.
    private final class FramerBox: @unchecked Sendable {
        var framer = H4Framer()
    }

    init(endpoint: String, link: PacketLink) {
        self.endpoint = endpoint
        self.link = link
        framer = FramerBox()
    }

    public func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError) {
        try link.send(prefix: type.rawValue, packet)
    }

    public func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        let box = framer
        try link.start(
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

    public func close() { link.close() }

    deinit { link.close() }
}
