public import PicoLink

/// Opens links to a rig's devices; the CLI hands one in (radio paths and the simulator), tests hand
/// in their own.
public protocol DeviceConnector: Sendable {
    /// Connects to `device` (address, transport, link tuning as configured).
    func connect(_ device: DeviceConfig) async throws -> DeviceConnection
}
