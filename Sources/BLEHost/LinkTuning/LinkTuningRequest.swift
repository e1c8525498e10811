/// What link tuning asks for after connecting: connection parameters (a preset or explicit values),
/// the largest data length (251 octets, 2120 µs), and the 2M PHY where both sides support it.
public struct LinkTuningRequest: Sendable, Hashable, CustomStringConvertible {
    /// The preset's name, or the text of explicit values.
    public var name: String
    /// Interval in 1.25 ms units, supervision timeout in 10 ms units (already validated).
    public var connection: HCIConnectionParameters
    /// LE Set Data Length: TX octets and TX time (µs).
    public var dataLength: LinkDataLength
    /// Ask for the 2M PHY (when both sides report LE feature bit 8).
    public var preferTwoMegabitPHY: Bool

    /// A request with explicit connection parameters; by default it also asks for the largest data length
    /// and the 2M PHY.
    public init(
        name: String,
        connection: HCIConnectionParameters,
        dataLength: LinkDataLength = .maximum,
        preferTwoMegabitPHY: Bool = true
    ) {
        self.name = name
        self.connection = connection
        self.dataLength = dataLength
        self.preferTwoMegabitPHY = preferTwoMegabitPHY
    }

    /// 7.5–15 ms interval, latency 0, 2 s supervision timeout.
    public static let lowLatency = LinkTuningRequest(name: "low-latency", connection: .lowLatency)
    /// 30–50 ms interval, latency 0, 4 s supervision timeout.
    public static let balanced = LinkTuningRequest(
        name: "balanced",
        connection: HCIConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400)
    )
    /// 100–200 ms interval, latency 4, 6 s supervision timeout.
    public static let powerSave = LinkTuningRequest(
        name: "power-save",
        connection: HCIConnectionParameters(intervalMin: 80, intervalMax: 160, latency: 4, supervisionTimeout: 600)
    )

    /// The named presets, in the order help texts list them.
    public static let presets: [LinkTuningRequest] = [.lowLatency, .balanced, .powerSave]

    /// The name and the connection parameters in milliseconds.
    public var description: String {
        "\(name) (\(LinkTuningFormat.parameters(connection)))"
    }
}

/// LE data length: octets and time (µs) of one link-layer data PDU.
public struct LinkDataLength: Sendable, Hashable {
    /// TX octets: the largest payload to send in one link-layer data PDU (the command takes 27…251).
    public var octets: UInt16
    /// TX time in µs: the longest air time of one data PDU sent (the command takes 328…17040).
    public var time: UInt16

    /// A data length to ask for; the values are not checked here.
    public init(octets: UInt16, time: UInt16) {
        self.octets = octets
        self.time = time
    }

    /// 251 octets, 2120 µs: the largest PDU on the 1M PHY.
    public static let maximum = LinkDataLength(octets: 251, time: 2120)
}
