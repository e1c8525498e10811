import BLEHost
import BLELinux
import BLEWire
public import Coordination
import Logging
public import PicoLink

/// The one way to open a device: from a `DeviceTarget` to a `DeviceLink`, connected, secured as asked
/// and its MTU exchanged, on any path — a simulator in this process, the kernel's L2CAP socket, or
/// hcipico's own HCI host on a user channel, a UART or TCP. It prints nothing and knows no exit
/// status: failures are `LinkOpenError`s, reports go to `logger` (what a person should see at notice
/// level, details at debug), and pairing's questions to the request's `PairingPrompter`.
public struct LinkOpener: Sendable {
    /// Where the links' reports go.
    public let logger: Logger
    /// hcipico's own hosts, shared by every link this opener makes on a transport (nil: each link on
    /// hcipico's own host gets a host of its own, shut down when the link closes).
    public let hosts: SharedHosts?
    /// What the sessions this opener opens time their commands on.
    public let clock: any TimeSource
    /// The simulated Picos this opener made, kept across their links.
    let simulatedPicos = SimulatedPicos()

    /// An opener that reports to `logger`; with `hosts`, links on the same user-space transport share
    /// one host (a rig's devices on one controller); the sessions it opens time their commands on `clock`.
    public init(logger: Logger, hosts: SharedHosts? = nil, clock: any TimeSource = SystemClock()) {
        self.logger = logger
        self.hosts = hosts
        self.clock = clock
    }

    /// How a link is opened.
    public struct Options: Sendable {
        /// How long the connection may take.
        public var timeout: Duration
        /// A btsnoop file to capture the link to (HCI packets on hcipico's own host, ATT PDUs as ACL on the
        /// kernel path); not with shared hosts nor a simulator.
        public var btsnoop: String?
        /// The ATT MTU to offer.
        public var mtu: Int
        /// The security the link must have (nil: used as it comes).
        public var security: SecurityRequest?
        /// How a simulated device behaves.
        public var simulator: SimulatorSettings
        /// Where every byte an EmStat Pico's session receives is captured (`openPico`; nil: nowhere).
        public var capture: RawCapture?

        /// Options for a link: by default a 20 s connect, the largest MTU, no capture, no security.
        public init(
            timeout: Duration = .seconds(20),
            btsnoop: String? = nil,
            mtu: Int = ATTBearer.maximumMTU,
            security: SecurityRequest? = nil,
            simulator: SimulatorSettings = SimulatorSettings(),
            capture: RawCapture? = nil
        ) {
            self.capture = capture
            self.timeout = timeout
            self.btsnoop = btsnoop
            self.mtu = mtu
            self.security = security
            self.simulator = simulator
        }
    }

    /// Connects to `target` as `options` say.
    public func open(_ target: DeviceTarget, options: Options = Options()) async throws(LinkOpenError) -> DeviceLink {
        switch target {
        case .simulator(let kind):
            return try await openSimulator(kind, settings: options.simulator, mtu: options.mtu)
        case .radio(let address, let transport):
            let capture = try Self.capture(options.btsnoop)
            do throws(LinkOpenError) {
                if case .kernel(let adapter) = transport {
                    return try await openKernel(address, adapter: adapter, options: options, capture: capture)
                }
                return try await openOwnHost(address, transport: transport, options: options, capture: capture)
            } catch {
                capture?.close()
                throw error
            }
        case .serialPort(let spec):
            throw LinkOpenError(
                "\(spec) is a Pico's UART, not a Bluetooth link: only the EmStat Pico commands reach it",
                cause: .badInput
            )
        }
    }

    private static func capture(_ path: String?) throws(LinkOpenError) -> BTSnoopWriter? {
        do {
            return try path.map { path throws(TransportError) in try BTSnoopWriter(path: path) }
        } catch {
            throw LinkOpenError("\(path ?? ""): cannot write the capture: \(error)", cause: .badInput)
        }
    }

    /// The GATT client over `transport`, its MTU exchanged; the transport is closed when that fails.
    func gattClient(over transport: any ATTTransport, name: String, mtu: Int) async throws(LinkOpenError) -> GATTClient
    {
        do {
            return try await GATTClient.connect(transport: transport, mtu: mtu)
        } catch {
            transport.close()
            throw LinkOpenError("\(name): \(error)", cause: .gatt(error))
        }
    }
}
