public import PicoLink

/// What a serial port answered when asked what is on it (`LinkOpener.probeSerialPort`).
public enum SerialPortProbe: Sendable, CustomStringConvertible {
    /// The port could not be opened (gone, held by another program, no permission, a wrong rate).
    case unopened(LinkOpenError)
    /// The port opened, but nothing answered `t` (no Pico, or one still running a script).
    case silent(PicoSessionError)
    /// An EmStat Pico answered `t`, and `i` with its serial number (nil when it did not within a second).
    case answered(PicoVersion, serialNumber: String?)

    /// In words, as `hcipico ports --probe` shows it: `EmStat Pico espico1209, serial ES12345`.
    public var description: String {
        switch self {
        case .unopened(let error): error.description
        case .silent(let error): "no answer to t (\(error))"
        case .answered(let version, let serial): "\(version.device) \(version.firmware), serial \(serial ?? "unknown")"
        }
    }
}
