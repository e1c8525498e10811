public import BLEHost
public import BLEWire
internal import CBlueZ

extension L2CAPATTSocket {
    /// The local adapter's address this link runs from (`getsockname`: `l2_bdaddr` of the bound side,
    /// which the kernel fills in with the adapter it routed the connection through).
    public func sourceAddress() throws(TransportError) -> BluetoothAddress {
        let address = try link.withSocket { (socket) throws(SystemError) in
            try socket.localAddress(initial: sockaddr_l2())
        }
        let wire = withUnsafeBytes(of: address.l2_bdaddr) { Array($0) }
        return BluetoothAddress(wireBytes: wire, type: .public)
    }
}
