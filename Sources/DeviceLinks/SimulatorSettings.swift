import PicoSimulator

/// How a simulated device behaves: in real time or as fast as it can, with a fault on purpose, with its
/// received writes traced, with a fixed noise seed or serial number.
public struct SimulatorSettings: Sendable {
    /// As fast as possible instead of in real time (a Pico's measurements and delays).
    public var fast: Bool
    /// A misbehaviour on purpose (nil: none).
    public var fault: SimulatorFault?
    /// Report every write the device receives (`sim: write 0x0007 0000`) at notice level.
    public var trace: Bool
    /// A Pico's noise seed, for a run that repeats exactly (nil: a fresh one).
    public var seed: UInt64?
    /// A Pico's serial number (nil: the simulator's own).
    public var serialNumber: String?
    /// A Pico's cell (nil: chosen per script, `CellModel.automatic(for:)`).
    public var cell: CellModel?
    /// The Unix socket of a simulated Pico served by another process (`SimulatorServer`, `hcipico
    /// simulate`); nil: a simulator in this process, made with the settings above.
    public var socket: String?

    /// Settings for a simulated device; by default a well-behaved one in real time.
    public init(
        fast: Bool = false,
        fault: SimulatorFault? = nil,
        trace: Bool = false,
        seed: UInt64? = nil,
        serialNumber: String? = nil,
        cell: CellModel? = nil,
        socket: String? = nil
    ) {
        self.socket = socket
        self.fast = fast
        self.fault = fault
        self.trace = trace
        self.seed = seed
        self.serialNumber = serialNumber
        self.cell = cell
    }
}
