public import BLEHost

/// Opens links to a rig's devices; the CLI hands one in (radio paths and the simulator), tests hand
/// in their own.
public protocol DeviceConnector: Sendable {
    /// Connects to `device` (address, transport, link tuning as configured).
    func connect(_ device: DeviceConfig) async throws -> DeviceConnection
}

/// An open link as the supervisor holds it.
public struct DeviceConnection: Sendable {
    public let client: GATTClient
    /// The link parameters in force now, as text for the provenance of the run about to start (nil when
    /// unknown). Link tuning runs beside the first run, so this may change while the link is open.
    public var parameters: String? { currentParameters() }
    private let currentParameters: @Sendable () -> String?
    /// Reads the link's RSSI now, in dBm; nil where the path cannot say (a simulator, a refusal).
    public let readRSSI: @Sendable () async -> Int?
    /// Ends the link and whatever carries it (host, capture, simulator).
    public let close: @Sendable () async -> Void

    /// A link whose parameters do not change while it is open.
    public init(
        client: GATTClient,
        parameters: String?,
        readRSSI: @escaping @Sendable () async -> Int? = { nil },
        close: @escaping @Sendable () async -> Void
    ) {
        self.init(client: client, currentParameters: { parameters }, readRSSI: readRSSI, close: close)
    }

    /// A link whose parameters `currentParameters` reads when asked (tuning in progress beside a run).
    public init(
        client: GATTClient,
        currentParameters: @escaping @Sendable () -> String?,
        readRSSI: @escaping @Sendable () async -> Int? = { nil },
        close: @escaping @Sendable () async -> Void
    ) {
        self.client = client
        self.currentParameters = currentParameters
        self.readRSSI = readRSSI
        self.close = close
    }
}
