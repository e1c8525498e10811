import BLEHost
import BLELinux
import BLEWire

extension LinkOpener {
    /// hcipico's own HCI host on a user-space transport: a host of its own (captured with `capture`),
    /// or the one `hosts` shares among the links on that transport; then security as asked.
    func openOwnHost(
        _ address: BluetoothAddress,
        transport: TransportSpec,
        options: Options,
        capture: BTSnoopWriter?
    ) async throws(LinkOpenError) -> DeviceLink {
        let host = try await self.host(for: transport, capture: capture)
        let shared = hosts != nil
        let connection: HCIConnection
        do {
            connection = try await host.connect(to: address, timeout: options.timeout)
        } catch {
            if let hosts, case .commandTimeout = error {
                await hosts.reset(transport, host: host, because: error)
            } else if !shared {
                await host.shutdown()
            }
            throw LinkOpenError("\(transport): \(error)", cause: .host(error))
        }
        logEvents(of: connection, name: address.description)
        /// Ends what was opened when a later step fails: the link, or the host of its own.
        func abandon() async {
            if shared { try? await connection.disconnect() } else { await host.shutdown() }
        }
        do throws(LinkOpenError) {
            let guardian = options.security.flatMap { request in
                host.controller.map {
                    HostLinkSecurity(
                        connection: connection,
                        controller: $0.publicAddress,
                        request: request,
                        logger: logger
                    )
                }
            }
            try await guardian?.prepare()
            let client = try await gattClient(over: connection.att, name: address.description, mtu: options.mtu)
            if let guardian, guardian.request.mode == .auto {
                do throws(LinkOpenError) {
                    try await guardian.answerSecurityRequest()
                } catch {
                    client.bearer.close()
                    throw error
                }
                client.onInsufficientSecurity { code in await guardian.raise(code) }
            }
            return DeviceLink(
                client: client,
                name: address.description,
                path: .host(host, connection, shared: shared),
                logger: logger,
                capture: capture,
                security: guardian
            )
        } catch {
            await abandon()
            throw error
        }
    }

    /// The started host for `transport`: the shared one, or a new one of its own.
    private func host(for transport: TransportSpec, capture: BTSnoopWriter?) async throws(LinkOpenError) -> HCIHost {
        guard let hosts else { return try await SharedHosts.start(transport, capture: capture, logger: logger) }
        guard capture == nil else {
            throw LinkOpenError("a btsnoop capture needs a host of its own, not a shared one", cause: .badInput)
        }
        return try await hosts.host(for: transport)
    }

    /// At debug level: each change on a link of our own host (parameters, data length, PHY, the
    /// disconnection) as it happens.
    private func logEvents(of connection: HCIConnection, name: String) {
        guard logger.logLevel <= .debug else { return }
        let logger = logger
        connection.observeEvents { event in logger.debug("\(name): \(event)") }
    }
}
