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
        /// An ESP32-style calculator: write `[a, b, op]`, the answer is notified.
        case calculator
        /// An HM-10 serial module: FFE0/FFE1, one characteristic both ways, echoing what it receives.
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

    var isSimulator: Bool {
        if case .simulator = self { return true }
        return false
    }
}
