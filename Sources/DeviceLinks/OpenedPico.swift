public import PicoLink

/// An EmStat Pico opened through `LinkOpener.openPico`: its session, and the Bluetooth link under it
/// (none for a Pico on a serial port).
public struct OpenedPico: Sendable {
    /// The session every command and run goes through.
    public let session: PicoSession
    /// The Bluetooth LE link the session runs over; nil when it runs over a serial port.
    public let link: DeviceLink?

    /// The device's name: its address, `sim:KIND` or `tty:PATH@BAUD`.
    public var name: String { session.name }

    /// What carries the session, for provenance (`MTU 247`, `/dev/ttyUSB0 at 230400 baud`).
    public var summary: String { session.channel.summary }

    /// Ends the session and whatever carries it.
    public func close() async {
        session.close()
        await link?.close()
    }
}
