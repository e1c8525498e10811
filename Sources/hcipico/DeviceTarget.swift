import ArgumentParser
import BLELinux
import BLEWire
import DeviceLinks
import Foundation

/// What a command's DEVICE argument names, parsed and checked before any socket is opened.
extension DeviceTarget {
    /// Parses `sim`, `sim:KIND`, `tty:PATH[@BAUD]` or an address, with the transport options that go with
    /// an address.
    static func parse(
        _ device: String,
        random: Bool,
        adapter: String?,
        transport: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ValidationError) -> DeviceTarget {
        if device == "sim" { return .simulator(.pico) }
        let port: SerialPortSpec?
        do {
            port = try SerialPortSpec(parsing: device)
        } catch {
            throw ValidationError(error.description)
        }
        if let port {
            guard transport == nil, adapter == nil, !random else {
                throw ValidationError(
                    "\(device) is a serial port: --transport, --adapter and --random are for Bluetooth"
                )
            }
            return .serialPort(port)
        }
        if device.hasPrefix("sim:") {
            let name = device.dropFirst(4)
            guard let kind = SimulatorKind(rawValue: String(name)) else {
                let kinds = SimulatorKind.allCases.map { "sim:\($0.rawValue)" }.joined(separator: ", ")
                throw ValidationError("unknown simulator '\(device)': the simulators are \(kinds)")
            }
            return .simulator(kind)
        }
        let address: BluetoothAddress
        do {
            address = try BluetoothAddress(parsing: device, type: random ? .random : .public)
        } catch {
            throw ValidationError("\(error)")
        }
        return .radio(
            address,
            try TransportSpec.fromOptions(transport: transport, adapter: adapter, environment: environment)
        )
    }
}
