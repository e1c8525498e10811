import BLEHost
import BLELinux
import BLEWire

extension LinkOpener {
    /// The kernel's L2CAP LE socket: the kernel connects (and pairs, answered by the agent).
    func openKernel(
        _ address: BluetoothAddress,
        adapter: HCIAdapterName?,
        options: Options,
        capture: BTSnoopWriter?
    ) async throws(LinkOpenError) -> DeviceLink {
        let security = options.security
        if let request = security, request.forcePairing {
            // The kernel encrypts from a key it holds instead of pairing: forget the old bond first.
            await KernelLinkSecurity.forget(
                address,
                adapter: adapter,
                bondDirectory: request.bondDirectory,
                logger: logger
            )
        }
        let agent = try await security.asyncMap { request throws(LinkOpenError) in
            try await KernelLinkSecurity.startAgent(for: address, adapter: adapter, request: request, logger: logger)
        }
        let wanted = security?.mode.upfront.map(SecurityMode.kernelLevel)
        let socket: L2CAPATTSocket
        do {
            socket = try await L2CAPATTSocket.connect(
                to: address,
                adapter: adapter,
                security: wanted,
                timeout: options.timeout
            )
        } catch {
            agent?.stop()
            throw LinkOpenError(error.message, cause: .system(error))
        }
        if let wanted {
            // The kernel may hand over the socket before its pairing has finished (or before it began:
            // a Security Manager set up a moment after the link): ask again and wait for the level.
            try? await socket.raiseSecurity(to: wanted, timeout: .seconds(10))
            let reached = socket.securityLevel ?? .low
            guard reached.rawValue >= wanted.rawValue else {
                socket.close()
                agent?.stop()
                throw LinkOpenError(KernelLinkSecurity.unsecured(address, reached), cause: .securityFailed)
            }
        }
        let att: any ATTTransport =
            capture.map { BTSnoopATTCapture(wrapping: socket, into: $0, handle: socket.connectionHandle) } ?? socket
        let client: GATTClient
        do {
            client = try await gattClient(over: att, name: address.description, mtu: options.mtu)
        } catch {
            agent?.stop()
            throw error
        }
        if security?.mode == .auto {
            let kernel = KernelLinkSecurity(socket: socket, logger: logger)
            client.onInsufficientSecurity { code in await kernel.raise(code) }
        }
        return DeviceLink(
            client: client,
            name: address.description,
            path: .kernel(socket, adapter: adapter, agent: agent),
            logger: logger,
            capture: capture
        )
    }
}

extension Optional {
    /// `map` for an async transform that throws `E`.
    fileprivate func asyncMap<T, E: Error>(_ transform: (Wrapped) async throws(E) -> T) async throws(E) -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
