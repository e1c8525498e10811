import BLELinux
import BLEWire
public import Coordination
import DeviceLinks
import Logging
public import PicoLink

/// Opens a rig device's link through `LinkOpener` (the config's link tuning beside the runs,
/// `LinkTuningBeside`): kernel adapters are watched and brought back by `adapters`; hcipico's own hosts
/// are shared by the devices on a transport, and one that stops answering is reset (`SharedHosts`).
public struct RigConnector: DeviceConnector {
    /// How long one connect attempt may take.
    public let timeout: Duration
    /// hcipico's own hosts, one per user-space transport, shared by the devices on it.
    public let hosts: SharedHosts
    /// Recovery of the kernel adapters the devices use.
    public let adapters: AdapterKeeper
    private let opener: LinkOpener
    private let logger: Logger

    /// A connector whose connects may take `timeout` each, logging to `logger`; `clock` paces the adapter
    /// checks (and would time the commands of sessions its opener opened).
    public init(timeout: Duration, logger: Logger, clock: any TimeSource = SystemClock()) {
        self.timeout = timeout
        hosts = SharedHosts(logger: logger)
        adapters = AdapterKeeper(control: KernelAdapterControl(), clock: clock, logger: logger)
        opener = LinkOpener(logger: logger, hosts: hosts, clock: clock)
        self.logger = logger
    }

    /// Why a device's link could not be opened.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, and why.
        public let description: String
    }

    public func connect(_ device: DeviceConfig) async throws -> DeviceConnection {
        let target = try Self.target(device)
        if case .serialPort(let spec) = target { return try await connectSerialPort(spec, device: device) }
        var options = LinkOpener.Options(timeout: timeout, security: Self.security(device))
        if device.isSimulator {
            options.simulator = SimulatorSettings(
                fast: !device.realTime,
                serialNumber: "SIM-" + device.name.uppercased(),
                cell: device.simulatorCell,
                socket: device.simulatorSocket
            )
        }
        // The kernel path: the adapter is watched, and followed when it comes back under another name.
        if case .radio(let address, .kernel(let configured)) = target {
            let adapter = configured?.description
            adapters.watch(adapter)
            let current = adapters.currentName(adapter).flatMap { try? HCIAdapterName(parsing: $0) } ?? configured
            return try await connectKernel(
                address,
                adapter: adapter,
                current: current,
                device: device,
                options: options
            )
        }
        let link: DeviceLink
        do {
            link = try await opener.open(target, options: options)
        } catch {
            throw Failure(description: error.description)
        }
        guard case .radio(_, let transport) = target else { return link.connection }
        let base = "MTU \(link.client.bearer.mtu), \(transport)"
        let tuning = LinkTuningBeside(link: link, request: device.link, base: base)
        var connection = DeviceConnection(
            client: link.client,
            currentParameters: { tuning.parameters },
            readRSSI: { await link.readRSSI() },
            close: { await link.close() }
        )
        connection.beside = { await tuning.run() }
        return connection
    }

    /// Opens the port; when it has gone and the device has a serial number, the port among its
    /// `search_ports` (or the FTDI ports) where that Pico answers, as a cable plugged in again may come
    /// back as another `ttyUSBn`.
    private func connectSerialPort(_ spec: SerialPortSpec, device: DeviceConfig) async throws -> DeviceConnection {
        let channel: UARTChannel
        do {
            channel = try opener.openSerialPort(spec)
        } catch {
            guard case .system(let failure) = error.cause, failure.kind == .noAdapter, let serial = device.serialNumber
            else { throw Failure(description: error.description) }
            let candidates = LinkOpener.serialPortCandidates(patterns: device.searchPorts, excluding: spec.path)
            guard let found = await opener.findPico(serialNumber: serial, among: candidates, baudRate: spec.baudRate)
            else {
                throw Failure(
                    description: "\(error.description); serial \(serial) is on none of \(candidates.count) other ports"
                )
            }
            logger.notice(
                "\(device.name): \(spec.path) has gone; serial \(serial) answers on \(found)",
                metadata: ["device": "\(device.name)"]
            )
            do {
                channel = try opener.openSerialPort(SerialPortSpec(path: found, baudRate: spec.baudRate))
            } catch {
                throw Failure(description: error.description)
            }
        }
        return DeviceConnection(channel: channel, close: { channel.close() })
    }

    private func connectKernel(
        _ address: BluetoothAddress,
        adapter: String?,
        current: HCIAdapterName?,
        device: DeviceConfig,
        options: LinkOpener.Options
    ) async throws -> DeviceConnection {
        let link: DeviceLink
        do {
            link = try await opener.open(.radio(address, .kernel(adapter: current)), options: options)
        } catch {
            adapters.connectFailed(adapter)
            throw Failure(description: error.description)
        }
        adapters.linkOpened(adapter)
        let tuning = LinkTuningBeside(link: link, request: device.link, base: "MTU \(link.client.bearer.mtu)")
        var connection = DeviceConnection(
            client: link.client,
            currentParameters: { tuning.parameters },
            readRSSI: { await link.readRSSI() },
            close: { [adapters] in
                await link.close()
                adapters.linkClosed(adapter)
            }
        )
        connection.beside = { await tuning.run() }
        return connection
    }

    /// The device the config names: its simulator, or its address over its transport.
    static func target(_ device: DeviceConfig) throws -> DeviceTarget {
        if device.isSimulator { return .simulator(.pico) }
        do throws(SerialPortSpecError) {
            if let spec = try SerialPortSpec(parsing: device.transport) { return .serialPort(spec) }
        } catch {
            throw Failure(description: error.description)
        }
        let transport: TransportSpec
        do {
            transport = try TransportSpec(parsing: device.transport)
        } catch {
            throw Failure(description: "\(error)")
        }
        guard let text = device.address,
            let address = BluetoothAddress(text, type: device.addressType == "random" ? .random : .public)
        else { throw Failure(description: "no address") }
        return .radio(address, transport)
    }

    /// The device's `security` and `passkey`, as a request that never prompts (the rig runs unattended).
    static func security(_ device: DeviceConfig) -> SecurityRequest? {
        guard let mode = device.security.flatMap(SecurityMode.init(rawValue:)) else { return nil }
        return SecurityRequest(mode: mode, passkey: device.passkey, bondDirectory: BondStore.defaultDirectory)
    }
}
