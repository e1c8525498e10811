import BLEHost
import BLELinux
import BLEWire
import Logging
import PicoSimulator
import RigCore

/// Opens a rig device's link: the radio paths through `ConnectedDevice` (the config's link tuning beside the
/// runs, `RigLinkTuning`),
/// or a simulated EmStat Pico of its own, in this process. Kernel adapters are watched and brought
/// back by `adapters`; user-space controllers that stop answering are reset by `hosts`.
struct RigConnector: DeviceConnector {
    /// How long one connect attempt may take.
    let timeout: Duration
    /// hcipico's own hosts, one per user-space transport, shared by the devices on it.
    let hosts: SharedHosts
    /// Recovery of the kernel adapters the devices use.
    let adapters: AdapterKeeper

    init(timeout: Duration, logger: Logger, clock: any RigClock = SystemRigClock()) {
        self.timeout = timeout
        hosts = SharedHosts(logger: logger)
        adapters = AdapterKeeper(control: KernelAdapterControl(), clock: clock, logger: logger)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func connect(_ device: DeviceConfig) async throws -> DeviceConnection {
        if device.isSimulator { return try await simulator(device) }
        let transport: TransportSpec
        do {
            transport = try TransportSpec(parsing: device.transport)
        } catch {
            throw Failure(description: "\(error)")
        }
        guard let text = device.address,
            let address = BluetoothAddress(text, type: device.addressType == "random" ? .random : .public)
        else { throw Failure(description: "no address") }
        guard case .kernel(let configured) = transport else {
            return try await overOwnHost(device, address: address, transport: transport)
        }
        let adapter = configured?.description
        adapters.watch(adapter)
        let current = adapters.currentName(adapter).flatMap { try? HCIAdapterName(parsing: $0) } ?? configured
        let link: ConnectedDevice
        do {
            link = try await ConnectedDevice.open(
                .radio(address, .kernel(adapter: current)),
                timeout: timeout,
                security: Self.security(device)
            )
        } catch {
            adapters.connectFailed(adapter)
            throw Failure(description: error.description)
        }
        adapters.linkOpened(adapter)
        let tuning = RigLinkTuning(base: "MTU \(link.client.bearer.mtu)", request: device.link) { request in
            await link.tune(request)?.connection.value.map { "\($0)" }
        }
        return DeviceConnection(
            client: link.client,
            currentParameters: { tuning.parameters },
            readRSSI: { await link.readRSSI() },
            close: { [adapters] in
                tuning.cancel()
                await link.close()
                adapters.linkClosed(adapter)
            }
        )
    }

    /// A device on a controller hcipico's own host drives: the host is shared with the other devices
    /// on that transport; closing the link disconnects this device only.
    private func overOwnHost(
        _ device: DeviceConfig,
        address: BluetoothAddress,
        transport: TransportSpec
    ) async throws -> DeviceConnection {
        let host: HCIHost
        do {
            host = try await hosts.host(for: transport)
        } catch {
            throw Failure(description: "\(transport): \(error)")
        }
        let connection: HCIConnection
        do {
            connection = try await host.connect(to: address, timeout: timeout)
        } catch {
            if case .commandTimeout = error { await hosts.reset(transport, host: host, because: error) }
            throw Failure(description: "\(address): \(error)")
        }
        var guardian: HostLinkSecurity?
        if let request = Self.security(device), let controller = host.controller {
            guardian = HostLinkSecurity(connection: connection, controller: controller.publicAddress, request: request)
            do {
                try await guardian?.prepare()
            } catch {
                try? await connection.disconnect()
                throw Failure(description: error.description)
            }
        }
        let client: GATTClient
        do {
            client = try await GATTClient.connect(transport: connection.att)
        } catch {
            try? await connection.disconnect()
            throw Failure(description: "\(address): \(error)")
        }
        if let guardian, guardian.request.mode == .auto {
            do {
                try await guardian.answerSecurityRequest()
            } catch {
                client.bearer.close()
                try? await connection.disconnect()
                throw Failure(description: error.description)
            }
            client.onInsufficientSecurity { code in await guardian.raise(code) }
        }
        let tuning = RigLinkTuning(base: "MTU \(client.bearer.mtu), \(transport)", request: device.link) { request in
            await LinkTuner().apply(request, to: connection).connection.value.map { "\($0)" }
        }
        return DeviceConnection(
            client: client,
            currentParameters: { tuning.parameters },
            readRSSI: { await connection.readRSSI() }
        ) {
            tuning.cancel()
            client.bearer.close()
            try? await connection.disconnect()
        }
    }

    /// The device's `security` and `passkey`, as a request that never prompts (the rig runs unattended).
    static func security(_ device: DeviceConfig) -> SecurityRequest? {
        guard let mode = device.security.flatMap(SecurityMode.init(rawValue:)) else { return nil }
        return SecurityRequest(
            mode: mode,
            passkey: device.passkey,
            bondDirectory: BondStore.defaultDirectory,
            interactive: false
        )
    }

    /// A simulated EmStat Pico with a serial number of its own (from the device's name).
    private func simulator(_ device: DeviceConfig) async throws -> DeviceConnection {
        var configuration: SimulatedPicoConfiguration = device.realTime ? SimulatedPicoConfiguration() : .fast
        configuration.serialNumber = "SIM-" + device.name.uppercased()
        let (host, deviceEnd) = try UnixSocketATTTransport.makePair()
        let peripheral = SimulatedPicoPeripheral(transport: deviceEnd, configuration: configuration)
        try peripheral.start()
        do {
            let client = try await GATTClient.connect(transport: host)
            return DeviceConnection(
                client: client,
                parameters: "simulated, MTU \(client.bearer.mtu)",
                close: { peripheral.close() }
            )
        } catch {
            peripheral.close()
            throw Failure(description: "\(device.name): \(error)")
        }
    }
}
