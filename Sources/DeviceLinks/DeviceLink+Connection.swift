public import PicoLink

extension DeviceLink {
    /// The link as a `DeviceKeeper`'s connection (what `DeviceManager`'s connectors return): its
    /// session runs over the client, its parameters are the MTU and what carries it, and closing it
    /// closes the link.
    public var connection: DeviceConnection {
        let parameters: String =
            switch path {
            case .simulator: "simulated, MTU \(client.bearer.mtu)"
            case .kernel, .host: "MTU \(client.bearer.mtu), \(name)"
            }
        return DeviceConnection(
            client: client,
            parameters: parameters,
            readRSSI: { await readRSSI() },
            close: { await close() }
        )
    }
}
