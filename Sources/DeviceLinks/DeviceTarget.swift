import BLELinux
import BLEWire

/// The device to open: a simulated device in this process, or a Bluetooth address reached over a
/// transport (the kernel, or hcipico's own host on a user channel, a UART or TCP).
public enum DeviceTarget: Equatable, Sendable {
    /// A device simulated in this process.
    case simulator(SimulatorKind)
    /// A device on the radio, reached over the transport.
    case radio(BluetoothAddress, TransportSpec)

    /// Whether it is a simulated device.
    public var isSimulator: Bool {
        if case .simulator = self { return true }
        return false
    }

    /// The name the device is known by in reports and records: its address, or `sim:KIND`.
    public var name: String {
        switch self {
        case .simulator(let kind): "sim:\(kind.rawValue)"
        case .radio(let address, _): address.description
        }
    }
}
