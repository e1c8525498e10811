public import BLEHost
internal import Glibc

/// A UART held for this program alone, raw 8N1 without flow control, and its reader thread: the byte
/// stream to an instrument's own serial port (an EmStat Pico's UART behind a USB-UART cable).
///
/// Opening takes an exclusive `flock` and sets `TIOCEXCL`, so a second program gets a clear refusal
/// instead of reading half the replies; what the port held from before is dropped. The reader delivers
/// every read in order on its own thread — while the device streams, a read shorter than 64 bytes is
/// followed by a pause of 64 bytes' time on the line (`ReadHoldoff`: 2.8 ms at 230400 baud), so that
/// one read and one delivery carry several lines, as a USB-UART adapter's own buffering does; `closed` runs once, with `.disconnected` when the device
/// went away (a cable pulled: the read fails or the line hangs up).
public final class SerialByteStream: Sendable {
    /// The device path as given (`/dev/ttyUSB0`, `/dev/serial/by-id/…`).
    public let device: String
    /// The line rate.
    public let baudRate: Int
    private let channel: DescriptorChannel

    private init(device: String, baudRate: Int, channel: DescriptorChannel) {
        self.device = device
        self.baudRate = baudRate
        self.channel = channel
    }

    /// Whether termios has a constant for `rate` baud.
    public static func supports(baudRate rate: Int) -> Bool { TTY.speed(rate) != nil }

    /// Opens and holds `device` at `baudRate`.
    public static func open(device: String, baudRate: Int) throws(BLELinuxError) -> SerialByteStream {
        guard let speed = TTY.speed(baudRate) else {
            throw BLELinuxError(.system, "\(device): \(baudRate) is not a baud rate termios supports")
        }
        do throws(SystemError) {
            let tty = try TTY.open(device: device, speed: speed, flowControl: false, exclusive: true)
            let channel = try DescriptorChannel(
                socket: tty,
                name: "uart",
                receiveCapacity: 4096,
                isSocket: false,
                holdoff: ReadHoldoff(baudRate: baudRate)
            )
            return SerialByteStream(device: device, baudRate: baudRate, channel: channel)
        } catch {
            throw TTY.openError(
                error,
                device: device,
                what: "the device",
                holders: "perhaps another hcipico, screen or minicom"
            )
        }
    }

    /// Starts the reader: `receive` gets every read, in order, on its thread; `closed` runs once after
    /// the last. Throws `.closed` when the stream is closed or delivery has started already.
    public func start(
        receive: @escaping @Sendable (UnsafeRawBufferPointer) -> Void,
        closed: @escaping @Sendable (TransportError) -> Void
    ) throws(TransportError) {
        try channel.start(
            deliver: { bytes in
                receive(bytes)
                return nil
            },
            closed: closed
        )
    }

    /// Writes `bytes` in order; what the port cannot take at once is queued behind (see
    /// `DescriptorChannel`). Throws `.closed` once the stream is closed.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(TransportError) {
        try channel.send(bytes)
    }

    /// Closes the port (and waits for the reader, unless called on it). Idempotent.
    public func close() { channel.close() }

    deinit { channel.close() }
}
