public import BLEWire

/// What `HCIHost` asks of the controller. The defaults suit a low-latency central.
public struct HCIHostConfiguration: Sendable {
    /// Bound on every command's Command Complete / Command Status.
    public var commandTimeout: Duration = .seconds(2)
    /// Own address: the controller's public BD_ADDR when it has one, else this static random address
    /// (set with LE Set Random Address). `forceRandomAddress` uses the random one regardless.
    public var staticRandomAddress = BluetoothAddress(value: 0xC0_5A_17_00_00_01, type: .random)
    /// Use `staticRandomAddress` even when the controller has a public address.
    public var forceRandomAddress = false
    /// Parameters of new connections and the limits within which peer requests are accepted.
    public var connectionParameters = HCIConnectionParameters.lowLatency
    /// The limits within which a peer's connection parameter request (over L2CAP or the link layer) is
    /// accepted; others are refused.
    public var acceptedParameters = HCIConnectionParameterLimits()
    /// Scan interval and window in 0.625 ms units.
    public var scanInterval: UInt16 = 0x0060
    /// How long the controller listens in each scan interval, in 0.625 ms units (at most `scanInterval`);
    /// also used while initiating a connection.
    public var scanWindow: UInt16 = 0x0060
    /// Write Suggested Default Data Length (251 octets) during initialisation when supported.
    public var suggestMaximumDataLength = true
    /// Called with one line per noteworthy event off the hot path (rejected requests, failed replies).
    public var diagnostics: (@Sendable (String) -> Void)?

    /// The defaults: 2 s command timeout, 7.5–15 ms connection interval, continuous 60 ms scanning, the
    /// public address when there is one.
    public init() {}
}

/// Connection parameters in HCI units: interval 1.25 ms, supervision timeout 10 ms.
public struct HCIConnectionParameters: Sendable, Hashable, CustomStringConvertible {
    /// The shortest connection interval, in 1.25 ms units (6…3200, 7.5 ms–4 s).
    public var intervalMin: UInt16
    /// The longest connection interval, in 1.25 ms units; at least `intervalMin`.
    public var intervalMax: UInt16
    /// Peripheral latency: how many connection events the peripheral may skip (0…499).
    public var latency: UInt16
    /// The supervision timeout, in 10 ms units (10…3200, 100 ms–32 s); as a duration it must exceed
    /// (1 + `latency`) × `intervalMax` × 2.
    public var supervisionTimeout: UInt16

    /// Parameters in HCI units; nothing is checked here (see `HCIConnectionParameterLimits.accepts`).
    public init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// 7.5–15 ms interval, no latency, 2 s supervision timeout.
    public static let lowLatency = HCIConnectionParameters(
        intervalMin: 6,
        intervalMax: 12,
        latency: 0,
        supervisionTimeout: 200
    )

    /// The values in HCI units, with the unit of each.
    public var description: String {
        "interval \(intervalMin)–\(intervalMax) ×1.25 ms, latency \(latency), timeout \(supervisionTimeout) ×10 ms"
    }
}

/// The parameter requests a peer may make that the host accepts (Core 5.4 Vol 6 Part B §4.5.1 ranges,
/// narrowed by the host's own limits).
public struct HCIConnectionParameterLimits: Sendable, Hashable {
    /// Connection intervals accepted, in 1.25 ms units; by default all the specification allows.
    public var intervalRange: ClosedRange<UInt16> = 6...3200
    /// The largest peripheral latency accepted; above 499 it has no effect.
    public var maximumLatency: UInt16 = 499
    /// Supervision timeouts accepted, in 10 ms units; by default all the specification allows.
    public var timeoutRange: ClosedRange<UInt16> = 10...3200

    /// Limits that accept every request the specification allows.
    public init() {}

    /// True when `parameters` are valid per the specification and within these limits.
    public func accepts(_ parameters: HCIConnectionParameters) -> Bool {
        guard parameters.intervalMin <= parameters.intervalMax,
            intervalRange.contains(parameters.intervalMin), intervalRange.contains(parameters.intervalMax),
            parameters.latency <= min(maximumLatency, 499),
            timeoutRange.contains(parameters.supervisionTimeout)
        else { return false }
        // Supervision timeout (10 ms units) must exceed (1 + latency) × interval max (1.25 ms) × 2.
        return UInt32(parameters.supervisionTimeout) * 4 > (1 + UInt32(parameters.latency))
            * UInt32(parameters.intervalMax)
    }
}
