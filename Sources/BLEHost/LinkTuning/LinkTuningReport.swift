public import BLEWire

/// How one tuning step ended. Nothing is hidden: a refusal names the HCI status, a skipped step says
/// why, an accepted command whose event never came says so.
public enum LinkTuningOutcome<Value: Sendable & Hashable>: Sendable, Hashable {
    /// In force, as the controller's event (or return parameters) reported it.
    case done(Value)
    /// The controller accepted the command but reported no result event within the wait (e.g. the
    /// values did not change, so no Data Length Change is due).
    case acceptedWithoutEvent(waited: Duration)
    /// The command (Command Status / Complete) or its completion event carried this error status.
    case refused(opcode: UInt16, status: HCIStatus)
    /// Not attempted: the reason (a feature bit or supported-commands bit missing, a failed prerequisite).
    case notSupported(String)
    /// No Command Status / Complete within the wait, or the link or socket went away (the reason).
    case failed(String)

    /// The value in force, when the step was done.
    public var value: Value? {
        if case .done(let value) = self { return value }
        return nil
    }
}

/// Connection parameters in force: interval (1.25 ms), peripheral latency, supervision timeout (10 ms).
public struct LinkConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// The connection interval, in 1.25 ms units.
    public var interval: UInt16
    /// Peripheral latency: how many connection events the peripheral may skip.
    public var latency: UInt16
    /// The supervision timeout, in 10 ms units.
    public var supervisionTimeout: UInt16

    /// Parameters in HCI units, as an event reports them.
    public init(interval: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.interval = interval
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// The interval and timeout in milliseconds, and the latency.
    public var description: String {
        "interval \(LinkTuningFormat.interval(interval)) ms, latency \(latency), timeout \(Int(supervisionTimeout) * 10) ms"
    }
}

/// Data length in force (LE Data Length Change).
public struct LinkDataLengthState: Sendable, Hashable, CustomStringConvertible {
    /// The largest payload this side sends in one link-layer data PDU, in octets.
    public var maxTxOctets: UInt16
    /// The longest air time of a data PDU this side sends, in µs.
    public var maxTxTime: UInt16
    /// The largest payload this side receives in one link-layer data PDU, in octets.
    public var maxRxOctets: UInt16
    /// The longest air time of a data PDU this side receives, in µs.
    public var maxRxTime: UInt16

    /// Values as LE Data Length Change reports them.
    public init(maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16) {
        self.maxTxOctets = maxTxOctets
        self.maxTxTime = maxTxTime
        self.maxRxOctets = maxRxOctets
        self.maxRxTime = maxRxTime
    }

    /// Both directions' octets and µs.
    public var description: String {
        "TX \(maxTxOctets) octets/\(maxTxTime) µs, RX \(maxRxOctets) octets/\(maxRxTime) µs"
    }
}

/// The PHYs in force (LE PHY Update Complete): 1 = 1M, 2 = 2M, 3 = Coded.
public struct LinkPHYState: Sendable, Hashable, CustomStringConvertible {
    /// The PHY used to transmit.
    public var tx: UInt8
    /// The PHY used to receive.
    public var rx: UInt8

    /// PHY codes as LE PHY Update Complete reports them.
    public init(tx: UInt8, rx: UInt8) {
        self.tx = tx
        self.rx = rx
    }

    /// A PHY code's name: `1M`, `2M`, `Coded`, or `PHY n` for any other code.
    public static func name(_ phy: UInt8) -> String {
        switch phy {
        case 1: "1M"
        case 2: "2M"
        case 3: "Coded"
        default: "PHY \(phy)"
        }
    }

    /// `TX <name>, RX <name>`.
    public var description: String { "TX \(Self.name(tx)), RX \(Self.name(rx))" }
}

/// Every step of one tuning run, in the order they ran.
public struct LinkTuningReport: Sendable, Hashable {
    /// The request the run applied.
    public var request: LinkTuningRequest
    /// LE features of our controller (bit 5 data length extension, bit 8 2M PHY).
    public var localFeatures: LinkTuningOutcome<UInt64>
    /// LE Read Remote Features → LE Read Remote Features Complete.
    public var remoteFeatures: LinkTuningOutcome<UInt64>
    /// LE Connection Update → LE Connection Update Complete.
    public var connection: LinkTuningOutcome<LinkConnectionState>
    /// LE Set Data Length → LE Data Length Change.
    public var dataLength: LinkTuningOutcome<LinkDataLengthState>
    /// LE Set PHY → LE PHY Update Complete.
    public var phy: LinkTuningOutcome<LinkPHYState>

    /// A report with every step `.notSupported("not run")`, for `LinkTuner` to fill in.
    public init(request: LinkTuningRequest) {
        self.request = request
        localFeatures = .notSupported("not run")
        remoteFeatures = .notSupported("not run")
        connection = .notSupported("not run")
        dataLength = .notSupported("not run")
        phy = .notSupported("not run")
    }

    /// One line per step: what was asked and how it ended.
    public var lines: [String] {
        [
            Self.line("local features", asked: "LE Read Local Supported Features", localFeatures) { Self.features($0) },
            Self.line("remote features", asked: "LE Read Remote Features", remoteFeatures) { Self.features($0) },
            Self.line("connection", asked: LinkTuningFormat.parameters(request.connection), connection) { "\($0)" },
            Self.line(
                "data length",
                asked: "TX \(request.dataLength.octets) octets/\(request.dataLength.time) µs",
                dataLength
            ) { "\($0)" },
            Self.line("PHY", asked: request.preferTwoMegabitPHY ? "2M" : "no change", phy) { "\($0)" },
        ]
    }

    static func line<Value>(
        _ step: String,
        asked: String,
        _ outcome: LinkTuningOutcome<Value>,
        _ show: (Value) -> String
    ) -> String {
        let result: String
        switch outcome {
        case .done(let value): result = "done: \(show(value))"
        case .acceptedWithoutEvent(let waited):
            result = "accepted, but no result event within \(waited) (values unchanged or not reported)"
        case .refused(let opcode, let status): result = "refused: \(status) (HCI command 0x\(hex4(opcode)))"
        case .notSupported(let why): result = "not supported: \(why)"
        case .failed(let why): result = "failed: \(why)"
        }
        return "link \(step): requested \(asked); \(result)"
    }

    static func features(_ bits: UInt64) -> String {
        let hex = String(bits, radix: 16)
        let dle = bits & LinkTuner.dataLengthExtensionBit != 0 ? "yes" : "no"
        let twoM = bits & LinkTuner.twoMegabitPHYBit != 0 ? "yes" : "no"
        return
            "0x\(String(repeating: "0", count: max(0, 16 - hex.count)))\(hex) (data length extension \(dle), 2M PHY \(twoM))"
    }
}
