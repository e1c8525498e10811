import BLEHost
import BLELinux
import BLEWire
import Logging

/// An open link to one device, whatever reaches it: a simulator in this process, the kernel's L2CAP LE
/// socket, or hcipico's own HCI host. Every command talks to the `client`; `path` says what carries it
/// (for link tuning and statistics).
struct ConnectedDevice {
    let client: GATTClient
    /// The device as the user named it (an address or `sim:KIND`).
    let name: String
    let path: Path
    private(set) var capture: BTSnoopWriter? = nil
    /// What the bearer dropped, told on standard error.
    let drops: DroppedPDUReport
    /// `--security` on hcipico's own host (nil otherwise).
    private(set) var security: HostLinkSecurity? = nil

    init(
        client: GATTClient,
        name: String,
        path: Path,
        capture: BTSnoopWriter? = nil,
        security: HostLinkSecurity? = nil
    ) {
        self.client = client
        self.name = name
        self.path = path
        self.capture = capture
        self.security = security
        drops = DroppedPDUReport(device: name)
        drops.install(on: client.bearer)
    }

    enum Path {
        /// A simulated peripheral in this process; `close` stops it.
        case simulator(DeviceTarget.SimulatorKind, close: @Sendable () -> Void)
        /// The kernel's L2CAP LE socket on an ACL link the kernel owns; with `--security`, the agent that
        /// answers the kernel's pairing questions for this device while the link is open.
        case kernel(L2CAPATTSocket, adapter: HCIAdapterName?, agent: KernelPairingAgent?)
        /// hcipico's own HCI host on a controller it drives.
        case host(HCIHost, HCIConnection)
    }

    /// Why opening failed, with the exit status it maps to.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        let status: ExitStatus
    }

    /// Connects; with `btsnoop`, every HCI packet (our own host) or every ATT PDU wrapped as ACL (the
    /// kernel path) is captured there in btsnoop format for Wireshark or `btmon -r`.
    static func open(
        _ target: DeviceTarget,
        timeout: Duration,
        btsnoop: String? = nil,
        fast: Bool = false,
        simulatorFault: SimulatorFault? = nil,
        simulatorTrace: Bool = false,
        simulatorSeed: UInt64? = nil,
        security: SecurityRequest? = nil,
        mtu: Int = ATTBearer.maximumMTU
    ) async throws(Failure) -> ConnectedDevice {
        switch target {
        case .simulator(let kind):
            return try await openSimulator(
                kind,
                fast: fast,
                fault: simulatorFault,
                trace: simulatorTrace,
                seed: simulatorSeed,
                mtu: mtu
            )
        case .radio(let address, let transport):
            return try await openRadio(
                address: address,
                transport: transport,
                timeout: timeout,
                btsnoop: btsnoop,
                security: security,
                mtu: mtu
            )
        }
    }

    private static func openRadio(
        address: BluetoothAddress,
        transport: TransportSpec,
        timeout: Duration,
        btsnoop: String?,
        security: SecurityRequest?,
        mtu: Int
    ) async throws(Failure) -> ConnectedDevice {
        let capture: BTSnoopWriter?
        do {
            capture = try btsnoop.map { path throws(TransportError) in try BTSnoopWriter(path: path) }
        } catch {
            throw Failure(description: "\(btsnoop ?? ""): cannot write the capture: \(error)", status: .badInput)
        }
        switch transport {
        case .kernel(let adapter):
            var agent: KernelPairingAgent?
            if let security {
                do throws(Failure) {
                    agent = try await KernelLinkSecurity.startAgent(for: address, adapter: adapter, request: security)
                } catch {
                    capture?.close()
                    throw error
                }
            }
            let socket: L2CAPATTSocket
            do {
                socket = try await L2CAPATTSocket.connect(
                    to: address,
                    adapter: adapter,
                    security: security?.mode.upfront.map(SecurityMode.kernelLevel),
                    timeout: timeout
                )
            } catch {
                agent?.stop()
                capture?.close()
                throw Failure(description: error.message, status: error.exitStatus)
            }
            if let wanted = security?.mode.upfront.map(SecurityMode.kernelLevel) {
                // The kernel may hand over the socket before its pairing has finished (or before it began:
                // a Security Manager set up a moment after the link): ask again and wait for the level.
                try? await socket.raiseSecurity(to: wanted, timeout: .seconds(10))
                let reached = socket.securityLevel ?? .low
                guard reached.rawValue >= wanted.rawValue else {
                    socket.close()
                    agent?.stop()
                    capture?.close()
                    throw Failure(description: KernelLinkSecurity.unsecured(address, reached), status: .securityFailed)
                }
            }
            let att: any ATTTransport =
                capture.map { BTSnoopATTCapture(wrapping: socket, into: $0, handle: socket.connectionHandle) }
                ?? socket
            let client = try await gattClient(over: att, name: address.description, capture: capture, mtu: mtu)
            if security?.mode == .auto {
                let kernel = KernelLinkSecurity(socket: socket)
                client.onInsufficientSecurity { code in await kernel.raise(code) }
            }
            return ConnectedDevice(
                client: client,
                name: address.description,
                path: .kernel(socket, adapter: adapter, agent: agent),
                capture: capture
            )
        case .userChannel, .serial, .tcp:
            let hci: any HCITransport
            do {
                hci = try transport.openHCITransport()
            } catch {
                capture?.close()
                throw Failure(description: error.message, status: error.exitStatus)
            }
            let host = HCIHost(transport: capture.map { BTSnoopCaptureTransport(wrapping: hci, into: $0) } ?? hci)
            let connection: HCIConnection
            let controller: HCIControllerInfo
            do {
                controller = try await host.start()
                Self.logger.debug(
                    "\(transport): controller \(controller.publicAddress), HCI version \(controller.hciVersion), manufacturer 0x\(String(controller.manufacturer, radix: 16))"
                )
                connection = try await host.connect(to: address, timeout: timeout)
                Self.logEvents(of: connection, name: address.description)
            } catch {
                await host.shutdown()
                capture?.close()
                throw Failure(description: "\(transport): \(error)", status: error.exitStatus)
            }
            do {
                let guardian = security.map {
                    HostLinkSecurity(connection: connection, controller: controller.publicAddress, request: $0)
                }
                try await guardian?.prepare()
                let client = try await gattClient(
                    over: connection.att,
                    name: address.description,
                    capture: nil,
                    mtu: mtu
                )
                if let guardian, security?.mode == .auto {
                    try await guardian.answerSecurityRequest()
                    client.onInsufficientSecurity { code in await guardian.raise(code) }
                }
                return ConnectedDevice(
                    client: client,
                    name: address.description,
                    path: .host(host, connection),
                    capture: capture,
                    security: guardian
                )
            } catch {
                await host.shutdown()
                capture?.close()
                throw error
            }
        }
    }

    /// Diagnostics of the links this process opens (`--log-level`, `-v`).
    static let logger = Logger(label: "hcipico.link")

    /// With `-v`: each change on a link of our own host (parameters, data length, PHY, the
    /// disconnection) as it happens.
    private static func logEvents(of connection: HCIConnection, name: String) {
        guard logger.logLevel <= .debug else { return }
        Task {
            for await event in connection.events { logger.debug("\(name): \(event)") }
        }
    }

    private static func gattClient(
        over transport: any ATTTransport,
        name: String,
        capture: BTSnoopWriter?,
        mtu: Int
    ) async throws(Failure) -> GATTClient {
        do {
            return try await GATTClient.connect(transport: transport, mtu: mtu)
        } catch {
            transport.close()
            capture?.close()
            throw Failure(description: "\(name): \(error)", status: error.exitStatus)
        }
    }

    /// Ends the link: on the kernel path it first waits (up to 5 s) for a pairing under way to report its
    /// keys; then the ATT bearer, then the host (which disconnects), then the capture file.
    func close() async {
        if case .kernel(_, _, let agent?) = path {
            // A pairing still distributing its keys over the link: wait for them, or the bond is not kept.
            await agent.settle(upTo: .seconds(5))
        }
        client.bearer.close()
        drops.finish(dropped: client.bearer.droppedPDUCount)
        switch path {
        case .simulator(_, let close): close()
        case .kernel(_, _, let agent): agent?.stop()
        case .host(let host, _): await host.shutdown()
        }
        capture?.close()
    }
}
