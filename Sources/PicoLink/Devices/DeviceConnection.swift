public import BLEHost
public import Coordination

/// An open link to a device, as a `DeviceKeeper`'s connector makes it: what a `PicoSession` runs over,
/// the link's parameters for provenance, its RSSI, and how to close it. `DeviceLink.connection` (in
/// DeviceLinks) makes one of any link `LinkOpener` opens; the rig's connector makes its own.
public struct DeviceConnection: Sendable {
    /// What a device's session runs over.
    public enum Carrier: Sendable {
        /// A Bluetooth LE link's GATT client (the session finds the VSP service on it).
        case gatt(GATTClient)
        /// A channel ready for the session (a Pico's UART on a serial port).
        case channel(any PicoChannel)
    }

    /// What the session runs over.
    public let carrier: Carrier
    /// The link parameters in force now, as text for the provenance of the run about to start (nil when
    /// unknown). Link tuning runs beside the first run, so this may change while the link is open.
    public var parameters: String? { currentParameters() }
    private let currentParameters: @Sendable () -> String?
    /// Reads the link's RSSI now, in dBm; nil where the path cannot say (a simulator, a refusal).
    public let readRSSI: @Sendable () async -> Int?
    /// Ends the link and whatever carries it (host, capture, simulator).
    public let close: @Sendable () async -> Void
    /// Work to do while the link is open, beside its runs (the link's tuning), if any: whoever holds
    /// the connection runs it as a child task and cancels it before `close`.
    public var beside: (@Sendable () async -> Void)?

    /// A link whose parameters do not change while it is open.
    public init(
        client: GATTClient,
        parameters: String?,
        readRSSI: @escaping @Sendable () async -> Int? = { nil },
        close: @escaping @Sendable () async -> Void
    ) {
        self.init(carrier: .gatt(client), currentParameters: { parameters }, readRSSI: readRSSI, close: close)
    }

    /// A serial port's channel, its parameters its `summary`.
    public init(channel: any PicoChannel, close: @escaping @Sendable () async -> Void) {
        let summary = channel.summary
        self.init(carrier: .channel(channel), currentParameters: { summary }, readRSSI: { nil }, close: close)
    }

    /// A link whose parameters `currentParameters` reads when asked (tuning in progress beside a run).
    public init(
        client: GATTClient,
        currentParameters: @escaping @Sendable () -> String?,
        readRSSI: @escaping @Sendable () async -> Int? = { nil },
        close: @escaping @Sendable () async -> Void
    ) {
        self.init(carrier: .gatt(client), currentParameters: currentParameters, readRSSI: readRSSI, close: close)
    }

    private init(
        carrier: Carrier,
        currentParameters: @escaping @Sendable () -> String?,
        readRSSI: @escaping @Sendable () async -> Int?,
        close: @escaping @Sendable () async -> Void
    ) {
        self.carrier = carrier
        self.currentParameters = currentParameters
        self.readRSSI = readRSSI
        self.close = close
    }
}

extension DeviceConnection {
    /// Opens the EmStat Pico session over the carrier.
    public func openSession(
        name: String,
        clock: any TimeSource = SystemClock()
    ) async throws(PicoSessionError) -> PicoSession {
        switch carrier {
        case .gatt(let client): try await PicoSession.open(client: client, name: name, clock: clock)
        case .channel(let channel): try await PicoSession.open(channel: channel, name: name, clock: clock)
        }
    }

    /// Ends the carrier at once (the link's bearer, the port), before `close` tidies up.
    public func endCarrier() {
        switch carrier {
        case .gatt(let client): client.bearer.close()
        case .channel(let channel): channel.close()
        }
    }
}
