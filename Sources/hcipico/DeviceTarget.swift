import ArgumentParser
import BLELinux
import BLEWire
import Foundation

/// What a command's DEVICE argument names: a simulated device in this process, or a Bluetooth address
/// reached over a transport. Parsed and checked before any socket is opened.
enum DeviceTarget: Equatable {
    case simulator(SimulatorKind)
    case radio(BluetoothAddress, TransportSpec)

    /// The simulated devices `sim:KIND` names; `sim` alone is the EmStat Pico.
    enum SimulatorKind: String, CaseIterable {
        case pico
        case hm10
    }

    /// Parses `sim`, `sim:KIND` or an address, with the transport options that go with an address.
    static func parse(
        _ device: String,
        random: Bool,
        adapter: String?,
        transport: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ValidationError) -> DeviceTarget {
        if device == "sim" { return .simulator(.pico) }
        if device.hasPrefix("sim:") {
            let name = device.dropFirst(4)
            guard let kind = SimulatorKind(rawValue: String(name)) else {
                let kinds = SimulatorKind.allCases.map { "sim:\($0.rawValue)" }.joined(separator: ", ")
                throw ValidationError("unknown simulator '\(device)': the simulators are \(kinds)")
            }
            return .simulator(kind)
        }
        do {
            let address = try BluetoothAddress(parsing: device, type: random ? .random : .public)
            var spec = try TransportSpec.resolve(transport, environment: environment)
            if let adapter {
                let name = try HCIAdapterName(parsing: adapter)
                guard case .kernel = spec else {
                    throw ValidationError("--adapter goes with the kernel transport; give user:\(adapter) instead")
                }
                spec = .kernel(adapter: name)
            }
            return .radio(address, spec)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    var isSimulator: Bool {
        if case .simulator = self { return true }
        return false
    }
}
