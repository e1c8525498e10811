/// The byte pipe a `PicoSession` talks over: the Laird VSP service of a Bluetooth LE link
/// (`VSPChannel`), or the Pico's UART on a serial port (`UARTChannel`). The session sees the same
/// reply stream either way; the channel carries bytes, paces them as its device needs, and says when
/// and why it ended.
public protocol PicoChannel: Sendable {
    /// Starts delivering what the device sends: every chunk to `receive`, in order, on the channel's
    /// reader (which must not wait for anyone), and then, once, why the channel ended to `ended`. Called
    /// once, before the first `send`.
    func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        ended: @escaping @Sendable (String) -> Void
    ) async throws(PicoSessionError)

    /// Sends `bytes` in order, paced so that the device loses none. One caller at a time.
    func send(_ bytes: [UInt8]) async throws(PicoSessionError)

    /// Why the channel ended, in words (`ATT bearer closed: …`, `device gone: …`); nil while it is open.
    var endReason: String? { get }

    /// Calls `handler` once with the end's reason when the channel ends (at once if it has).
    func onEnd(_ handler: @escaping @Sendable (String) -> Void)

    /// Ends the channel; calling it again does nothing.
    func close()

    /// What carries the channel, for provenance and logs (`MTU 247`, `/dev/ttyUSB0 at 230400 baud`).
    var summary: String { get }
}
