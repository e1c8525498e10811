public import Coordination

/// Settings of one `SimulatedPico`.
public struct SimulatedPicoConfiguration: Sendable {
    /// Real time (`SystemClock`, the default) or as fast as possible (a `ManualClock` that skips idle time).
    public var clock: any TimeSource = SystemClock()
    /// The cell; `nil` picks one per script (`CellModel.automatic(for:)`).
    public var cell: CellModel?
    /// Seed of the measurement noise; the same seed and script give the same bytes. Nil: a fresh seed
    /// for every run, so that two runs differ as two measurements do.
    public var noiseSeed: UInt64?
    /// The potentials the instrument applies (V): `set_e` or a loop's potential outside fails with
    /// `!4205` (argument outside the allowed bounds).
    public var potentialRange = SimulatedPicoConfiguration.picoPotentialRange
    /// The EmStat Pico's potential range, −1.7 V to +2 V.
    public static let picoPotentialRange: ClosedRange<Double> = -1.7...2.0
    /// Noise scale: 0 = none, 1 = the default (0.02 % of the value + 0.002 % of the range's full scale).
    public var noiseScale = 1.0
    /// The BT900 receive FIFO (see `VSPReceiveBuffer` for the default size).
    public var receiveBufferCapacity = 1024
    /// ModemOut hysteresis; `nil` = 3/4 and 1/4 of the capacity.
    public var modemOutFullThreshold: Int?
    public var modemOutResumeThreshold: Int?
    /// The GAP service's Device Name (the test peers advertise the same name).
    public var deviceName = "PicoSim"
    /// Notification payload limit (ATT_MTU − 3); 20 for the default MTU of 23.
    public var maximumNotificationPayload = 20
    /// How fast the module hands received bytes to the Pico: 230 400 baud 8N1 = 23 040 bytes/s. Applied only
    /// with a real-time clock (a virtual-time device drains at once); `nil` = no limit.
    public var uartBytesPerSecond: Double? = 23_040
    /// Reply to `t`: the first line after `t` and the line before `*`.
    public var firmwareVersion = "espico1209#Nov 22 2026 00:00:00"
    public var firmwareSuffix = "R"
    /// Reply to `v` (after the `v`).
    public var methodScriptVersion = "01.09.00"
    /// Reply to `i` (after the `i`).
    public var serialNumber = "SIMPICO00001"
    /// Longest command or script line in characters, newline excluded (longer: `!0008`).
    public var maximumLineLength = 128
    /// Largest script in bytes (larger: `!4005`).
    public var maximumScriptBytes = 16 * 1024
    /// Whether `Z` stops a running script. False simulates a faulty device that answers `Z` but goes on
    /// measuring until its script ends by itself (a host must bound how long it waits for the end).
    public var abortStopsScript = true
    /// Hears every change of the cell (`cell_on`, `cell_off`), on the script's thread.
    public var onCellChange: (@Sendable (SimulatedCell) -> Void)?

    public init() {}

    /// As fast as possible on a fresh `ManualClock` that skips idle time, with a fixed noise seed: for tests and benchmarks.
    public static var fast: SimulatedPicoConfiguration {
        var configuration = SimulatedPicoConfiguration()
        configuration.clock = ManualClock(skipsIdleTime: true)
        configuration.noiseSeed = 0x5EED
        return configuration
    }
}
