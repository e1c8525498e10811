public import BLELinux
import BLEWire
public import Foundation

extension DeviceTarget {
    /// How a person names a device: `sim` (`sim:pico`), `sim:KIND`, `tty:PATH[@BAUD]` (a Pico on a
    /// serial port), or a Bluetooth address (`random` for a random one) reached over `transport`, else
    /// `HCIPICO_TRANSPORT` in `environment`, else the kernel, whose adapter `adapter` picks.
    ///
    /// - Throws: `LinkOpenError` with cause `.badInput`, saying what cannot be used and why, before
    ///   anything is opened.
    public init(
        parsing device: String,
        random: Bool = false,
        adapter: String? = nil,
        transport: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LinkOpenError) {
        if device == "sim" {
            self = .simulator(.pico)
            return
        }
        let port: SerialPortSpec?
        do {
            port = try SerialPortSpec(parsing: device)
        } catch {
            throw LinkOpenError(error.description, cause: .badInput)
        }
        if let port {
            guard transport == nil, adapter == nil, !random else {
                throw LinkOpenError(
                    "\(device) is a serial port: --transport, --adapter and --random are for Bluetooth",
                    cause: .badInput
                )
            }
            self = .serialPort(port)
            return
        }
        if device.hasPrefix("sim:") {
            guard let kind = SimulatorKind(rawValue: String(device.dropFirst(4))) else {
                let kinds = SimulatorKind.allCases.map { "sim:\($0.rawValue)" }.joined(separator: ", ")
                throw LinkOpenError("unknown simulator '\(device)': the simulators are \(kinds)", cause: .badInput)
            }
            self = .simulator(kind)
            return
        }
        let address: BluetoothAddress
        do {
            address = try BluetoothAddress(parsing: device, type: random ? .random : .public)
        } catch {
            throw LinkOpenError("\(error)", cause: .badInput)
        }
        self = .radio(address, try TransportSpec.resolve(transport, adapter: adapter, environment: environment))
    }
}

extension TransportSpec {
    /// The transport `transport` names, else `HCIPICO_TRANSPORT` in `environment`, else the kernel;
    /// `adapter` (hciN) picks the kernel path's adapter and goes with no other transport.
    ///
    /// - Throws: `LinkOpenError` with cause `.badInput`, locating the problem.
    public static func resolve(
        _ transport: String?,
        adapter: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LinkOpenError) -> TransportSpec {
        let spec: TransportSpec
        let name: HCIAdapterName?
        do {
            spec = try TransportSpec.resolve(transport, environment: environment)
            name = try adapter.map { try HCIAdapterName(parsing: $0) }
        } catch {
            throw LinkOpenError("\(error)", cause: .badInput)
        }
        guard let adapter, let name else { return spec }
        guard case .kernel = spec else {
            throw LinkOpenError(
                "--adapter goes with the kernel transport; give user:\(adapter) instead",
                cause: .badInput
            )
        }
        return .kernel(adapter: name)
    }
}
