import BLELinux
import BLEWire

/// The device to open: a simulated device in this process, a Bluetooth address reached over a
/// transport (the kernel, or hcipico's own host on a user channel, a UART or TCP), or an EmStat Pico's
/// own UART on a serial port.
public enum DeviceTarget: Equatable, Sendable {
    /// A device simulated in this process.
    case simulator(SimulatorKind)
    /// A device on the radio, reached over the transport.
    case radio(BluetoothAddress, TransportSpec)
    /// An EmStat Pico on a serial port (a USB-UART cable), no radio between.
    case serialPort(SerialPortSpec)

    /// Whether it is a simulated device.
    public var isSimulator: Bool {
        if case .simulator = self { return true }
        return false
    }

    /// The device as the start of a file's name (`connect --out`): `sim-KIND`, its address, or its
    /// serial port's last path component.
    public var fileNamePart: String {
        switch self {
        case .simulator(let kind): "sim-\(kind.rawValue)"
        case .radio(let address, _): address.description
        case .serialPort(let port): port.path.split(separator: "/").last.map(String.init) ?? "tty"
        }
    }

    /// The name the device is known by in reports and records: its address, `sim:KIND`, or
    /// `tty:PATH@BAUD`.
    public var name: String {
        switch self {
        case .simulator(let kind): "sim:\(kind.rawValue)"
        case .radio(let address, _): address.description
        case .serialPort(let spec): spec.description
        }
    }
}
