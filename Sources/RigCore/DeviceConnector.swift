public import BLEHost

/// Opens links to a rig's devices; the CLI hands one in (radio paths and the simulator), tests hand
/// in their own.
public protocol DeviceConnector: Sendable {
    /// Connects to `device` (address, transport, link tuning as configured).
    func connect(_ device: DeviceConfig) async throws -> RigLink
}

/// An open link as the supervisor holds it.
public struct RigLink: Sendable {
    public let client: GATTClient
    /// The link parameters in force, as text for provenance (nil when unknown).
    public let parameters: String?
    /// Reads the link's RSSI now, in dBm; nil where the path cannot say (a simulator, a refusal).
    public let readRSSI: @Sendable () async -> Int?
    /// Ends the link and whatever carries it (host, capture, simulator).
    public let close: @Sendable () async -> Void

    public init(
        client: GATTClient,
        parameters: String?,
        readRSSI: @escaping @Sendable () async -> Int? = { nil },
        close: @escaping @Sendable () async -> Void
    ) {
        self.client = client
        self.parameters = parameters
        self.readRSSI = readRSSI
        self.close = close
    }
}
