import BLELinux

/// A device on a serial port: `tty:PATH[@BAUD]`, e.g. `tty:/dev/ttyUSB0`,
/// `tty:/dev/serial/by-id/usb-FTDI_FT230X_Basic_UART_DK0ABCDE-if00-port0@230400`. The rate defaults to
/// the EmStat Pico's 230400 baud (8N1, no flow control).
public struct SerialPortSpec: Hashable, Sendable, CustomStringConvertible {
    /// The EmStat Pico's UART rate.
    public static let picoBaudRate = 230_400
    /// The form the parser takes, for help texts.
    public static let acceptedForm = "tty:PATH[@BAUD]"

    /// The device path (`/dev/ttyUSB0`, a `/dev/serial/by-id/…` link).
    public let path: String
    /// The line rate.
    public let baudRate: Int

    /// A port at `path` and `baudRate`.
    public init(path: String, baudRate: Int = SerialPortSpec.picoBaudRate) {
        self.path = path
        self.baudRate = baudRate
    }

    /// Parses `tty:PATH[@BAUD]`; nil when `text` does not start with `tty:`. Throws when it does but the
    /// rest is not a path and a rate termios supports.
    public init?(parsing text: String) throws(SerialPortSpecError) {
        guard text.hasPrefix("tty:") else { return nil }
        var rest = Substring(text.dropFirst(4))
        var rate = Self.picoBaudRate
        if let at = rest.lastIndex(of: "@") {
            let digits = rest[rest.index(after: at)...]
            guard let value = Int(digits), value > 0 else {
                throw SerialPortSpecError("\(text): '\(digits)' is not a baud rate (\(Self.acceptedForm))")
            }
            guard SerialByteStream.supports(baudRate: value) else {
                throw SerialPortSpecError("\(text): \(value) is not a baud rate termios supports")
            }
            rate = value
            rest = rest[..<at]
        }
        guard rest.hasPrefix("/"), rest.count > 1 else {
            throw SerialPortSpecError("\(text): the port must be an absolute path (\(Self.acceptedForm))")
        }
        self.init(path: String(rest), baudRate: rate)
    }

    /// `tty:PATH@BAUD`.
    public var description: String { "tty:\(path)@\(baudRate)" }
}

/// Why a `tty:` spec cannot be used.
public struct SerialPortSpecError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, with the spec.
    public let description: String

    init(_ description: String) { self.description = description }
}
