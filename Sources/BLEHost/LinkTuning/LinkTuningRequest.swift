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

    public static let presets: [LinkTuningRequest] = [.lowLatency, .balanced, .powerSave]

    /// The accepted forms, for help texts and errors.
    public static let acceptedForms = "low-latency, balanced, power-save, or MIN-MAX[,LATENCY[,TIMEOUT]] in ms"

    /// A preset by name, or explicit values `MIN-MAX[,LATENCY[,TIMEOUT]]` (interval and timeout in ms,
    /// e.g. `7.5-15`, `30-50,0,4000`), checked against Core 5.4 Vol 4 Part E §7.8.18: interval
    /// 7.5 ms–4 s in 1.25 ms steps, min ≤ max, latency ≤ 499, timeout 100 ms–32 s in 10 ms steps and
    /// above (1 + latency) × max × 2. Without TIMEOUT the smallest of 2 s and 32 s that is valid is used.
    public init(parsing text: String) throws(LinkTuningSyntaxError) {
        if let preset = Self.presets.first(where: { $0.name == text }) {
            self = preset
            return
        }
        self = try LinkTuningParser(text: text).parse()
    }

    public var description: String {
        "\(name) (\(LinkTuningFormat.parameters(connection)))"
    }
}

/// LE data length: octets and time (µs) of one link-layer data PDU.
public struct LinkDataLength: Sendable, Hashable {
    public var octets: UInt16
    public var time: UInt16

    public init(octets: UInt16, time: UInt16) {
        self.octets = octets
        self.time = time
    }

    /// 251 octets, 2120 µs: the largest PDU on the 1M PHY.
    public static let maximum = LinkDataLength(octets: 251, time: 2120)
}

/// A `--link` value that is not a preset nor valid explicit parameters; `offset` is the 0-based
/// character position of the offending field in `text`.
public struct LinkTuningSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public let text: String
    public let offset: Int
    public let field: String
    public let reason: String

    public init(text: String, offset: Int, field: String, reason: String) {
        self.text = text
        self.offset = offset
        self.field = field
        self.reason = reason
    }

    public var description: String {
        "'\(text)' at character \(offset + 1) (\(field)): \(reason); expected \(LinkTuningRequest.acceptedForms)"
    }
}
