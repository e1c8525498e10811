public import BLEWire

/// A byte path to a Bluetooth controller that carries whole HCI packets, each tagged with its H4
/// packet indicator: `HCI_CHANNEL_USER` sockets, UARTs and TCP links to an emulated controller.
///
/// Delivery works as in `ATTTransport`: one synchronous call per packet, in order, on the reader thread.
public protocol HCITransport: AnyObject, Sendable {
    /// Sends one HCI packet (without its indicator byte, which `type` gives).
    func send(_ type: HCIPacketIndicator, _ packet: UnsafeRawBufferPointer) throws(TransportError)

    /// Starts delivery; `closed` is called exactly once, after the last `receive`.
    func start(
        receive: @escaping @Sendable (HCIPacketIndicator, UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError)

    /// Closes the transport. Idempotent.
    func close()
}
