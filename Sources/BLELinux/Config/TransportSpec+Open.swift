public import BLEHost

extension TransportSpec {
    /// Opens the user-space host's transport this value names. The kernel path is not a transport of
    /// whole HCI packets (the kernel keeps ACL and L2CAP), so `.kernel` is refused here.
    public func openHCITransport(tcpTimeout: Duration = .seconds(5)) throws(BLELinuxError) -> any HCITransport {
        switch self {
        case .kernel:
            throw BLELinuxError(.system, "the kernel transport carries ATT over L2CAP sockets, not HCI packets")
        case .userChannel(let adapter):
            return try HCIUserChannelSocket.open(adapter)
        case .serial(let device, let baudRate, let flowControl):
            return try H4StreamTransport.openSerial(device: device, baudRate: baudRate, flowControl: flowControl)
        case .tcp(let host, let port):
            return try H4StreamTransport.connectTCP(host: host, port: port, timeout: tcpTimeout)
        }
    }
}
